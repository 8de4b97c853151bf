#!/usr/bin/env bash
# Test and development certificates, made with the openssl CLI only.
#
#   conf/mkcerts.sh DIR
#       DIR/ca.{crt,key}      CA "CN=nginx-kube-apiserver-ca" (EC P-256, 10 years)
#       DIR/server.{crt,key}  serving cert: DNS:localhost, IP:127.0.0.1, IP:::1
#       DIR/admin.{crt,key}   client cert CN=kube-admin, O=system:masters
#   conf/mkcerts.sh DIR client NAME CN [ORG...]
#       also DIR/NAME.{crt,key}: a client cert for user CN in groups ORG, signed by the CA
#   conf/mkcerts.sh DIR self-signed NAME CN [ORG...]
#       also DIR/NAME.{crt,key}: a client cert signed by a throw-away CA nobody trusts
#
# Idempotent: existing files are kept (the CA is made only when DIR/ca.crt is
# missing, a named cert only when DIR/NAME.crt is missing). Concurrent runs on
# the same DIR are serialised with flock, so parallel test files can share it.
set -euo pipefail

usage() {
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
dir=$1
shift
mode=${1:-}
if [ -n "$mode" ]; then
    [ $# -ge 3 ] || usage
    case $mode in
        client|self-signed) ;;
        *) usage ;;
    esac
    name=$2
    cn=$3
    shift 3
    case $name in
        ca|server|admin|*/*|'') echo "mkcerts: bad certificate name \"$name\"" >&2; exit 2 ;;
    esac
fi

mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9

work=$(mktemp -d "$dir/.tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Our own config, so the result does not depend on the system openssl.cnf.
cat > "$work/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
EOF

newkey() {
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null
    chmod 600 "$1"
}

# make_ca DIR SUBJECT: a self-signed CA in DIR/ca.{crt,key}
make_ca() {
    newkey "$1/ca.key"
    openssl req -x509 -new -config "$work/openssl.cnf" -extensions ca -key "$1/ca.key" \
        -subj "$2" -days 3650 -sha256 -out "$1/ca.crt"
}

# sign CADIR OUTBASE SUBJECT EXTENSIONS
sign() {
    newkey "$2.key"
    openssl req -new -config "$work/openssl.cnf" -key "$2.key" -subj "$3" -out "$2.csr"
    openssl x509 -req -in "$2.csr" -CA "$1/ca.crt" -CAkey "$1/ca.key" \
        -set_serial "0x$(openssl rand -hex 15)" -days 3650 -sha256 \
        -extfile "$work/openssl.cnf" -extensions "$4" -out "$2.crt" 2>/dev/null
    rm -f "$2.csr"
}

# subject CN ORG...: "/O=org1/O=org2/CN=cn", with "/" and "," escaped for -subj
subject() {
    local s="" o
    local cn=${1//\//\\/}
    shift
    for o in "$@"; do
        s="$s/O=${o//\//\\/}"
    done
    printf '%s/CN=%s' "$s" "$cn"
}

# Files are made in $work and moved into place; ca.crt goes last because its
# presence is what tells a later run that the set is complete.
if [ ! -f "$dir/ca.crt" ]; then
    make_ca "$work" "/CN=nginx-kube-apiserver-ca"
    sign "$work" "$work/server" "/CN=localhost" server
    sign "$work" "$work/admin" "$(subject kube-admin system:masters)" client
    for f in ca.key server.crt server.key admin.crt admin.key ca.crt; do
        mv "$work/$f" "$dir/$f"
    done
fi

if [ -n "$mode" ] && [ ! -f "$dir/$name.crt" ]; then
    if [ "$mode" = client ]; then
        sign "$dir" "$work/$name" "$(subject "$cn" "$@")" client
    else
        mkdir "$work/rogue"
        make_ca "$work/rogue" "/CN=untrusted-ca"
        sign "$work/rogue" "$work/$name" "$(subject "$cn" "$@")" client
    fi
    mv "$work/$name.key" "$dir/$name.key"
    mv "$work/$name.crt" "$dir/$name.crt"
fi
