#!/bin/sh
# Makes the certificates of tls-relay-verification.test.ts with openssl (keys are thrown away:
# the tests read certificates only). Run in this directory; validity is 100 years.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
key="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
# self-signed NAME SUBJECT [EXTENSION...]
self_signed() {
  name=$1 subject=$2
  shift 2
  openssl req -x509 $key -sha256 -days 36500 -subj "$subject" "$@" -keyout "$work/$name.key" -out "$name.pem"
}
# signed NAME SUBJECT CA [EXTENSION...]
signed() {
  name=$1 subject=$2 ca=$3
  shift 3
  openssl req -new $key -subj "$subject" "$@" -keyout "$work/$name.key" -out "$work/$name.csr"
  openssl x509 -req -in "$work/$name.csr" -CA "$ca.pem" -CAkey "$work/$ca.key" -CAcreateserial \
    -CAserial "$work/serial" -copy_extensions copy -sha256 -days 36500 -out "$name.pem"
}
as_ca="-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign"
as_server="-addext subjectAltName=DNS:backend.internal"
self_signed root /CN=Root
self_signed other-root "/CN=Other root"
# A server certificate that is its own CA: no keyCertSign, as node:crypto's and many tools' are.
self_signed self-signed /CN=backend.internal $as_server \
  -addext basicConstraints=critical,CA:FALSE -addext keyUsage=critical,digitalSignature
# Root's subject and key, signed by Other root: the copy of an anchor a backend may send.
openssl x509 -x509toreq -copy_extensions copy -in root.pem -signkey "$work/root.key" -out "$work/root-cross.csr"
openssl x509 -req -in "$work/root-cross.csr" -CA other-root.pem -CAkey "$work/other-root.key" \
  -CAserial "$work/serial" -CAcreateserial -copy_extensions copy -sha256 -days 36500 -out root-cross.pem
signed first "/CN=First intermediate" root $as_ca
signed second "/CN=Second intermediate" first $as_ca
signed leaf /CN=leaf root $as_server
signed chained /CN=chained first $as_server
signed deep /CN=deep second $as_server
