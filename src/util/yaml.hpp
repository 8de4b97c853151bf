#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"

namespace kube::util::yaml {

// Converts the first YAML document of `text` into `doc`; mirrors
// sigs.k8s.io/yaml.YAMLToJSON, which kube-apiserver uses for YAML bodies:
// go-yaml v2 (YAML 1.1) decoding into untyped values, then JSON.
//   - Plain scalars resolve as go-yaml v2 does: y/Y/yes/Yes/YES, true/True/TRUE,
//     on/On/ON (and the n/no/false/off families) are booleans; ~, null, Null,
//     NULL and the empty scalar are null; ints take Go base prefixes (0x, 0o,
//     0b, leading-0 octal) and '_' separators; floats YAML-style; timestamps
//     stay strings. Quoted scalars are always strings; !!str, !!int, !!float,
//     !!bool, !!null and !!binary tags are honoured.
//   - Anchors, aliases and '<<' merge keys are expanded; excessive aliasing
//     (billion laughs) is refused as go-yaml refuses it.
//   - Non-string keys become strings (1 -> "1", true -> "true", 1.5 -> "1.5");
//     a duplicate key keeps the last value; object members come out sorted by
//     key, as Go's encoding/json writes a map.
//   - Numbers land as JSON text would parse back: an integral float is an
//     integer, so `1.0` and `1` are the same value.
// An empty stream converts to null. Documents after the first are ignored, as
// kube-apiserver ignores them. On failure returns the message kube gives, e.g.
// "error converting YAML to JSON: yaml: line 2: mapping values are not allowed
// in this context" (go-yaml's line numbering, including its quirks).
std::optional<std::string> toJson(std::string_view text, json::Document& doc);

// Every document of a "---"-separated stream, each converted like toJson; an
// empty document (e.g. after a trailing "---") converts to null. `docs` is
// cleared first and left empty on failure.
std::optional<std::string> toJsonStream(std::string_view text, std::vector<json::Document>& docs);

}  // namespace kube::util::yaml
