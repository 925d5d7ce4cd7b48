#!/usr/bin/env bash
# The image's entrypoint, installed as /opt/kvs/bin/kvs: the ./kvs launcher without the build step.
# Runs /opt/kvs/kvs.jar with the JVM flags Chronicle Map needs. Extra JVM options: KVS_JAVA_OPTS.
#   docker run IMAGE server --role primary --bind 0.0.0.0 ...   |   kvs drill load ...  (inside)
set -euo pipefail

jar="${KVS_JAR:-/opt/kvs/kvs.jar}"
if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  java="$JAVA_HOME/bin/java"
else
  java="$(command -v java)" || { echo "kvs: java not found: set JAVA_HOME" >&2; exit 1; }
fi

# Keep in sync with ../kvs and the chronicle.jvm.flags property of the parent pom.xml.
flags=(
  --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-exports=java.base/sun.nio.ch=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  -Dchronicle.analytics.disable=true
  -Dchronicle.announcer.disable=true
)

# "17.0.15" -> 17, "24-ea" -> 24.
version_line="$("$java" -version 2>&1 | grep -m1 'version' || true)"
major="$(sed -E 's/.*version "([0-9]+).*/\1/' <<<"$version_line")"
if ! [[ "$major" =~ ^[0-9]+$ ]] || (( major < 17 )); then
  echo "kvs: $java is not Java 17 or newer: $version_line" >&2
  exit 1
fi
if (( major >= 24 )); then
  flags+=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
fi

# KVS_JAVA_OPTS is split on whitespace on purpose, like JAVA_OPTS.
# shellcheck disable=SC2086
exec "$java" "${flags[@]}" ${KVS_JAVA_OPTS:-} -jar "$jar" "$@"
