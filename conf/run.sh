#!/usr/bin/env bash
# `make run`: nginx in the foreground with conf/nginx.conf, TLS on
# 127.0.0.1:$PORT, state under var/.
#
# Environment: PORT (default 6443), BUILD (directory of the module, default
# <repo>/build), SANITIZE=1 (preload the ASan runtime instead of jemalloc),
# CONF (default conf/nginx.conf), ETCD (etcd's endpoints, "http://host:port"
# comma-separated, optionally followed by kube_storage's other parameters:
# the store is then that etcd instead of LMDB), VAR (the state folder instead
# of var/: logs, pid, store, rendered nginx.conf and kubeconfig; relative to
# the repository). Two hosts on one etcd from one checkout:
#
#     make run ETCD=http://127.0.0.1:2379 PORT=6443 VAR=var/a
#     make run ETCD=http://127.0.0.1:2379 PORT=6444 VAR=var/b
#
# The certificates and the service-account key stay in var/certs whatever
# VAR is, so that every host of one cluster trusts the same CA and tokens.
#
# conf/nginx.conf is written for the repository root as nginx's prefix:
# "listen 127.0.0.1:6443", "load_module build/ngx_http_kube_apiserver_module.so",
# and var/... paths (var/certs, var/data, var/logs, var/tmp). It is rendered
# into var/nginx.conf with the port and the module path replaced and every
# var/ and conf/ path made absolute, because nginx resolves ssl_* and include
# paths against the directory of the config file rather than the prefix.
#
# As root, nginx runs its workers as "nobody", which cannot pass through a
# private (0700) home folder to reach var/. The workers' own files (var/data,
# the store, and var/tmp) then live under /var/lib/nginx-kube-apiserver/
# followed by the repository's path; certificates, logs and the kubeconfig
# stay in var/ (the master, root, reads and writes them). nginx itself checks
# at start that the workers can use their paths (kube_storage, the body temp
# path) and fails with the path and the reason if they cannot.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
PORT=${PORT:-6443}
BUILD=${BUILD:-$repo/build}
CONF=${CONF:-conf/nginx.conf}
ETCD=${ETCD:-}
VAR=${VAR:-var}
case $VAR in
    /*) var=$VAR ;;
    *) var=$repo/$VAR ;;
esac
var=${var%/}
certs=$repo/var/certs

case $PORT in
    ''|*[!0-9]*) echo "run.sh: PORT must be a number, not \"$PORT\"" >&2; exit 2 ;;
esac
[ -f "$CONF" ] || { echo "run.sh: $CONF is missing" >&2; exit 1; }

case $ETCD in
    *';'*|*'#'*) echo "run.sh: ETCD must not hold \";\" or \"#\"" >&2; exit 2 ;;
esac

mkdir -p "$var/logs" "$certs"

state=$var
if [ "$(id -u)" = 0 ] && ! grep -Eq '^[[:space:]]*user[[:space:]]' "$CONF" \
    && ! setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups test -x "$var" 2>/dev/null
then
    state=/var/lib/nginx-kube-apiserver$repo
    [ "$var" = "$repo/var" ] || state=/var/lib/nginx-kube-apiserver$var
    echo "run.sh: the workers (user nobody) cannot reach $var: the store and temporary files are in $state" >&2
fi
mkdir -p "$state/tmp"
conf/mkcerts.sh "$certs"
conf/mkkubeconfig.sh "$certs" "https://127.0.0.1:$PORT" "$var/kubeconfig"

# The service-account signing key (kube_service_account_signing_key_file) and
# its public half (kube_service_account_key_file), made once: RSA 2048, so
# tokens are RS256 as kube-apiserver's. Made aside and moved into place,
# sa.key last, so an interrupted first start leaves no half-made pair.
if [ ! -f "$certs/sa.key" ]; then
    tmpkey=$(mktemp "$certs/.sa.XXXXXX")
    trap 'rm -f "$tmpkey" "$tmpkey.pub"' EXIT
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmpkey" 2> /dev/null
    chmod 600 "$tmpkey"
    openssl pkey -in "$tmpkey" -pubout -out "$tmpkey.pub"
    mv "$tmpkey.pub" "$certs/sa.pub"
    mv "$tmpkey" "$certs/sa.key"
    trap - EXIT
fi

storage=()
if [ -n "$ETCD" ]; then
    storage=(-e "s#^\([[:space:]]*\)kube_storage[[:space:]][^;]*;#\1kube_storage etcd:$ETCD;#")
fi
sed -e "s#127\.0\.0\.1:6443#127.0.0.1:$PORT#g" \
    -e "s#\([[:space:]:\"']\)var/\(data\|tmp\)\b#\1$state/\2#g" \
    -e "s#[^[:space:]\"']*ngx_http_kube_apiserver_module\.so#$BUILD/ngx_http_kube_apiserver_module.so#g" \
    -e "s#\([[:space:]:\"']\)var/certs/#\1$certs/#g" \
    -e "s#\([[:space:]:\"']\)var/#\1$var/#g" \
    -e "s#\([[:space:]:\"']\)conf/#\1$repo/conf/#g" \
    "${storage[@]}" \
    "$CONF" > "$var/nginx.conf"
if [ -n "$ETCD" ] && ! grep -q "kube_storage etcd:" "$var/nginx.conf"; then
    echo "run.sh: $CONF has no one-line kube_storage directive for ETCD to replace" >&2
    exit 1
fi

if grep -q 'ngx_http_kube_apiserver_module\.so' "$var/nginx.conf" \
    && [ ! -f "$BUILD/ngx_http_kube_apiserver_module.so" ]; then
    echo "run.sh: $BUILD/ngx_http_kube_apiserver_module.so is missing (run make)" >&2
    exit 1
fi

if [ "${SANITIZE:-}" = 1 ]; then
    preload=$(readlink -f "$(gcc -print-file-name=libasan.so)")
    # nginx never frees its cycle pool at exit: every exit would be a "leak".
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
else
    preload=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
fi

daemon=(-g 'daemon off;')
if grep -Eq '^[[:space:]]*daemon[[:space:]]' "$var/nginx.conf"; then
    daemon=()
fi

# The configuration, the store and the paths the workers use are checked
# (nginx -t runs the module's checks) before the banner says it serves.
LD_PRELOAD=$preload /usr/sbin/nginx -t -q -p "$repo/" -c "$var/nginx.conf" -e "$var/logs/error.log"

storage_name="LMDB in $state/data"
[ -z "$ETCD" ] || storage_name="etcd:$ETCD"
auth="client certificates, service-account tokens and RBAC"
if ! grep -Eq '^[[:space:]]*kube_authorization_mode[[:space:]]([^;#]*[[:space:]])?RBAC[[:space:];]' \
    "$var/nginx.conf"; then
    auth="the authentication and authorization of $CONF"
fi
cat <<EOF
nginx-kube-apiserver on https://127.0.0.1:$PORT (Ctrl-C stops it; log: $var/logs/error.log)
storage: $storage_name
with $auth. $VAR/kubeconfig is the admin's (CN=kube-admin, O=system:masters):

    export KUBECONFIG=$var/kubeconfig
    kubectl get ns

Another user, "jane" in group "dev" (no rights until a binding gives her some):

    $repo/conf/mkcerts.sh $certs client jane jane dev
    $repo/conf/mkkubeconfig.sh $certs https://127.0.0.1:$PORT $var/kubeconfig-jane jane
    kubectl create rolebinding jane-view --clusterrole=view --user=jane -n default
    kubectl --kubeconfig=$var/kubeconfig-jane get configmaps -n default

EOF

# exec: nginx's master is this process, so Ctrl-C reaches it directly.
LD_PRELOAD=$preload exec /usr/sbin/nginx -p "$repo/" -c "$var/nginx.conf" "${daemon[@]}" \
    -e "$var/logs/error.log"
