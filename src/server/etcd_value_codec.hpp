#pragma once

#include "storage/etcd/value_codec.hpp"

namespace kube::server {

// kube-apiserver's storage encoding, for an etcd shared with it: built-in
// kinds as the protobuf envelope ("k8s\0" and a runtime.Unknown naming
// apiVersion and kind, whose raw bytes are the object's message), kinds the
// schema has no message for as JSON, and neither with a resourceVersion
// (etcd's mod_revision is it). The kinds of kube's aggregator and
// apiextensions servers stay JSON, as kube stores them. Decoding reads both
// encodings, whoever wrote them, into the registry's JSON.
storage::etcd::ValueCodec kubeValueCodec();

}  // namespace kube::server
