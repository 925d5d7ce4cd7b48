package dev.kvs.bench.shards;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.MemberStatus;
import dev.kvs.coordination.ZkClients;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.server.cli.CliErrorHandler;
import dev.kvs.server.cli.KvsVersionProvider;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvs cluster show}: a cluster's map as ZooKeeper holds it now, with each member's ephemeral
 * status where it has one (its role and client address as it published them).
 */
@Command(
        name = "show",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "Print a cluster's map from ZooKeeper, and which members are online.",
        optionListHeading = "%nOptions:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:printed", "1:no map, or ZooKeeper could not be reached or refused", "2:bad options"})
public final class ClusterShowCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    private CommandSpec spec;

    @Mixin
    private ZooKeeperOptions zookeeper;

    /** The environment: {@code System::getenv}, replaced by tests. */
    UnaryOperator<String> env = System::getenv;

    @Override
    public Integer call() throws InterruptedException {
        ZkClients.Settings settings;
        ZkPaths paths;
        try {
            settings = zookeeper.settings(env);
            paths = new ZkPaths(zookeeper.cluster);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        try (CuratorFramework zk = ZooKeeperOptions.connect(settings)) {
            Optional<ClusterMapStore.Versioned> map = new ClusterMapStore(zk, paths).read();
            if (map.isEmpty()) {
                err.println(name + ": cluster '" + zookeeper.cluster + "' has no map (" + paths.map()
                        + "): 'kvs cluster init' creates one");
                err.flush();
                return CliErrorHandler.FAILURE;
            }
            out.println("cluster '" + zookeeper.cluster + "' in ZooKeeper " + settings.connectString());
            out.print(MapTable.format(map.get().map(), map.get().version(), Map.of(), members(zk, paths)));
            out.flush();
            return 0;
        } catch (Exception e) {
            return ZooKeeperOptions.failed(err, name, settings.connectString(), e);
        }
    }

    /** The members' published status by node id; a znode gone between the listing and the read is skipped. */
    private static Map<String, MemberStatus> members(CuratorFramework zk, ZkPaths paths) throws Exception {
        Map<String, MemberStatus> members = new HashMap<>();
        List<String> ids;
        try {
            ids = zk.getChildren().forPath(paths.members());
        } catch (KeeperException.NoNodeException none) {
            return members;
        }
        for (String id : ids) {
            try {
                members.put(id, JSON.readValue(zk.getData().forPath(paths.member(id)), MemberStatus.class));
            } catch (KeeperException.NoNodeException gone) {
                // its session ended meanwhile: not online
            }
        }
        return members;
    }
}
