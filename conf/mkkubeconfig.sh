#!/usr/bin/env bash
# Writes a kubeconfig for a server made with conf/mkcerts.sh.
#
#   conf/mkkubeconfig.sh CERTDIR URL OUT [NAME]
#
# For an https URL the cluster trusts CERTDIR/ca.crt and the user presents
# CERTDIR/NAME.{crt,key} (NAME defaults to admin: CN=kube-admin,
# O=system:masters; NAME "none" presents no certificate). For an http URL
# the user has no credentials. Every file is embedded as *-data, so OUT can
# be copied anywhere.
set -euo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
dir=$1
url=$2
out=$3
name=${4:-admin}

b64() {
    base64 -w0 < "$1"
}

tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
    echo "apiVersion: v1"
    echo "kind: Config"
    echo "clusters:"
    echo "- name: nginx-kube"
    echo "  cluster:"
    echo "    server: $url"
    case $url in
        https:*) echo "    certificate-authority-data: $(b64 "$dir/ca.crt")" ;;
    esac
    echo "users:"
    echo "- name: $name"
    case $name:$url in
        none:*)
            echo "  user: {}"
            ;;
        *:https:*)
            echo "  user:"
            echo "    client-certificate-data: $(b64 "$dir/$name.crt")"
            echo "    client-key-data: $(b64 "$dir/$name.key")"
            ;;
        *)
            echo "  user: {}"
            ;;
    esac
    echo "contexts:"
    echo "- name: nginx-kube"
    echo "  context:"
    echo "    cluster: nginx-kube"
    echo "    user: $name"
    echo "current-context: nginx-kube"
    echo "preferences: {}"
} > "$tmp"
chmod 600 "$tmp"
mv "$tmp" "$out"
trap - EXIT
