package dev.kvs.bench.shards;

import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkClients;
import dev.kvs.server.cli.KvsVersionProvider;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvs cluster init}: creates a cluster's first map in ZooKeeper, before or after its nodes
 * start (a coordinated primary serves only once the map names it). Never replaces a map ({@link
 * MapInit}).
 */
@Command(
        name = "init",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "Create a cluster's map in ZooKeeper: its shards, their slots and members.",
        descriptionHeading = "%n",
        description = {
            "Splits the 16384 slots evenly across the shards as redis-cli does, every shard at epoch 1, its"
                    + " first member its primary. Members are named by node name (the nodes' 'name:'); the map"
                    + " holds their node ids, the SHA-1 of cluster/name. Refuses if the cluster has a map:"
                    + " once nodes run, only a promotion changes it."
        },
        optionListHeading = "%nOptions:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the map was created",
            "1:it was not: the cluster has a map, or ZooKeeper could not be reached or refused",
            "2:bad options"
        })
public final class ClusterInitCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ZooKeeperOptions zookeeper;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Layout layout;

    /** Either a count of shards with the launcher's names, or each shard spelled out. */
    static final class Layout {
        @Option(
                names = "--shards",
                paramLabel = "N",
                description = "N shards shard-0..N-1 (1.." + MapPlan.MAX_SHARDS + "), members shard-i-a"
                        + " (primary) and shard-i-b, the names 'kvs cluster' gives its nodes")
        Integer shards;

        @Option(
                names = "--shard",
                paramLabel = "ID=PRIMARY,BACKUP",
                description = "A shard and its members' node names, primary first, e.g. shard-0=dc1-a,dc2-a;"
                        + " repeat for each shard, in slot order")
        List<String> specs;
    }

    /** The environment: {@code System::getenv}, replaced by tests. */
    UnaryOperator<String> env = System::getenv;

    @Override
    public Integer call() throws InterruptedException {
        MapPlan plan;
        ZkClients.Settings settings;
        try {
            plan = layout.shards != null
                    ? MapPlan.even(zookeeper.cluster, layout.shards)
                    : MapPlan.parse(zookeeper.cluster, layout.specs);
            plan.map(); // the map's own checks
            settings = zookeeper.settings(env);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        if (settings.credentials().isEmpty()) {
            err.println(name + ": no credentials (--credentials-file or $KVS_ZOOKEEPER_CREDENTIALS): the map is"
                    + " open to every client of the ensemble");
            err.flush();
        }
        try (CuratorFramework zk = ZooKeeperOptions.connect(settings)) {
            ClusterMapStore.Versioned stored = MapInit.create(zk, plan);
            out.println("created the map of cluster '" + plan.cluster() + "' in ZooKeeper " + settings.connectString());
            out.print(MapTable.format(stored.map(), stored.version(), plan.namesById(), Map.of()));
            out.flush();
            return 0;
        } catch (Exception e) {
            return ZooKeeperOptions.failed(err, name, settings.connectString(), e);
        }
    }
}
