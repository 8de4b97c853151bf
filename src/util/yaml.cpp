#include "util/yaml.hpp"

#include <yaml.h>

#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "util/yaml_scalar.hpp"

namespace kube::util::yaml {

namespace {

constexpr std::string_view kMergeTag = "tag:yaml.org,2002:merge";

constexpr const char* kErrorPrefix = "error converting YAML to JSON: ";
// Nesting limit (collections and alias expansion), so hostile input cannot
// exhaust the stack; kube objects nest a few dozen levels at most.
constexpr int kMaxDepth = 1000;
constexpr const char* kMaxDepthError = "exceeded max depth of 1000";

// ---------------------------------------------------------------------------
// The node tree go-yaml's parser builds for one document.

enum class NodeKind { Scalar, Mapping, Sequence, Alias };

struct Node {
    NodeKind kind = NodeKind::Scalar;
    std::string value;      // scalar text; the anchor name of an alias
    std::string tag;        // long form ("tag:yaml.org,2002:int"), "" when absent
    bool implicit = false;  // plain scalar without a tag (or with "!")
    const Node* alias = nullptr;
    std::vector<const Node*> children;  // mapping: key, value, key, value, ...
};

struct Tree {
    std::deque<Node> nodes;
    std::unordered_map<std::string, const Node*> anchors;
    const Node* root = nullptr;
};

std::string cstr(const yaml_char_t* s) {
    return s == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(s));
}

// libyaml's event stream; error() words a failure as go-yaml's parser.fail().
class Events {
  public:
    explicit Events(std::string_view text) {
        static const unsigned char kEmpty[] = "";
        yaml_parser_initialize(&parser_);
        const auto* data =
            text.empty() ? kEmpty : reinterpret_cast<const unsigned char*>(text.data());
        yaml_parser_set_input_string(&parser_, data, text.size());
    }
    ~Events() {
        clear();
        yaml_parser_delete(&parser_);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;

    bool next() {
        clear();
        if (!yaml_parser_parse(&parser_, &event_)) {
            return false;
        }
        has_ = true;
        return true;
    }
    const yaml_event_t& event() const { return event_; }
    yaml_event_type_t type() const { return event_.type; }

    // go-yaml reports the problem line, 1-based for scanner errors but
    // 0-based for parser errors, and no line at all for line 0.
    std::string error() const {
        size_t line = 0;
        if (parser_.problem_mark.line != 0) {
            line = parser_.problem_mark.line + (parser_.error == YAML_SCANNER_ERROR ? 1 : 0);
        } else if (parser_.context_mark.line != 0) {
            line = parser_.context_mark.line;
        }
        std::string msg = "yaml: ";
        if (line != 0) {
            msg += "line " + std::to_string(line) + ": ";
        }
        msg +=
            parser_.problem != nullptr ? parser_.problem : "unknown problem parsing YAML content";
        return msg;
    }

  private:
    void clear() {
        if (has_) {
            yaml_event_delete(&event_);
            has_ = false;
        }
    }
    yaml_parser_t parser_{};
    yaml_event_t event_{};
    bool has_ = false;
};

// Builds the tree of the document whose DOCUMENT-START is the current event;
// mirrors go-yaml's parser (anchors are bound before their children are read,
// so a self-referencing alias is caught by the decoder).
class TreeReader {
  public:
    TreeReader(Events& events, Tree& tree) : events_(events), tree_(tree) {}

    bool document() {
        if (!advance()) {
            return false;
        }
        tree_.root = node(0);
        return tree_.root != nullptr && advance();
    }
    const std::string& error() const { return err_; }

  private:
    bool advance() {
        if (!events_.next()) {
            err_ = events_.error();
            return false;
        }
        return true;
    }

    [[gnu::noinline]] Node& add(NodeKind kind, const yaml_char_t* anchor, const yaml_char_t* tag) {
        Node& n = tree_.nodes.emplace_back();
        n.kind = kind;
        n.tag = cstr(tag);
        if (anchor != nullptr) {
            tree_.anchors[cstr(anchor)] = &n;
        }
        return n;
    }

    // Reads the node starting at the current event; on return the current
    // event is the node's last one.
    const Node* node(int depth) {
        const yaml_event_t& e = events_.event();
        switch (e.type) {
            case YAML_SCALAR_EVENT: {
                Node& n = add(NodeKind::Scalar, e.data.scalar.anchor, e.data.scalar.tag);
                n.value.assign(reinterpret_cast<const char*>(e.data.scalar.value),
                               e.data.scalar.length);
                n.implicit = e.data.scalar.plain_implicit != 0;
                return &n;
            }
            case YAML_ALIAS_EVENT:
                return alias(e);
            case YAML_SEQUENCE_START_EVENT:
                return collection(NodeKind::Sequence, e.data.sequence_start.anchor,
                                  e.data.sequence_start.tag, YAML_SEQUENCE_END_EVENT, depth);
            case YAML_MAPPING_START_EVENT:
                return collection(NodeKind::Mapping, e.data.mapping_start.anchor,
                                  e.data.mapping_start.tag, YAML_MAPPING_END_EVENT, depth);
            default:
                err_ = "yaml: unexpected event in document";
                return nullptr;
        }
    }

    // Out of line: its strings would otherwise sit in every recursive frame.
    [[gnu::noinline]] const Node* alias(const yaml_event_t& e) {
        std::string name = cstr(e.data.alias.anchor);
        auto it = tree_.anchors.find(name);
        if (it == tree_.anchors.end()) {
            err_ = "yaml: unknown anchor '" + name + "' referenced";
            return nullptr;
        }
        Node& n = add(NodeKind::Alias, nullptr, nullptr);
        n.value = std::move(name);
        n.alias = it->second;
        return &n;
    }

    const Node* collection(NodeKind kind, const yaml_char_t* anchor, const yaml_char_t* tag,
                           yaml_event_type_t end, int depth) {
        if (depth >= kMaxDepth) {
            err_ = std::string("yaml: ") + kMaxDepthError;
            return nullptr;
        }
        Node& n = add(kind, anchor, tag);
        while (true) {
            if (!advance()) {
                return nullptr;
            }
            if (events_.type() == end) {
                return &n;
            }
            const Node* child = node(depth + 1);
            if (child == nullptr) {
                return nullptr;
            }
            n.children.push_back(child);
        }
    }

    Events& events_;
    Tree& tree_;
    std::string err_;
};

// ---------------------------------------------------------------------------
// Decoding the tree into JSON, as go-yaml's decoder fills an interface{} and
// sigs.k8s.io/yaml then turns it into JSON.

// An approximation of Go's %#v of a decoded value, for error messages.
std::string goSyntax(const json::Value& v) {
    if (v.IsNull()) {
        return "<nil>";
    }
    if (v.IsString()) {
        std::string out;
        json::appendQuoted(out, json::view(v));
        return out;
    }
    if (v.IsArray()) {
        std::string out = "[]interface {}{";
        for (const json::Value& e : v.GetArray()) {
            out += (out.back() == '{' ? "" : ", ") + goSyntax(e);
        }
        return out + "}";
    }
    if (v.IsObject()) {
        std::string out = "map[interface {}]interface {}{";
        for (const auto& m : v.GetObject()) {
            out += out.back() == '{' ? "" : ", ";
            json::appendQuoted(out, json::view(m.name));
            out += ":" + goSyntax(m.value);
        }
        return out + "}";
    }
    return json::serialize(v);
}

// Allowed share of decoded nodes that came through aliases (go-yaml's
// allowedAliasRatio): generous for small documents, 10% for huge ones.
double allowedAliasRatio(int64_t decodeCount) {
    constexpr double kLow = 400000;
    constexpr double kHigh = 4000000;
    if (decodeCount <= kLow) {
        return 0.99;
    }
    if (decodeCount >= kHigh) {
        return 0.10;
    }
    return 0.99 - 0.89 * ((static_cast<double>(decodeCount) - kLow) / (kHigh - kLow));
}

class Decoder {
  public:
    explicit Decoder(json::Allocator& a) : a_(a) {}

    // Decodes `root` (null for an empty stream) into `out`; on failure
    // returns the full message.
    std::optional<std::string> decode(const Node* root, json::Value& out) {
        out.SetNull();
        if (root != nullptr && !unmarshal(*root, Target{&out, nullptr, nullptr})) {
            return kErrorPrefix + yamlErr_;
        }
        if (keyErr_) {
            return kErrorPrefix + *keyErr_;
        }
        if (jsonErr_) {
            return kErrorPrefix + *jsonErr_;
        }
        return std::nullopt;
    }

  private:
    // A Go map[interface{}]interface{} being filled: typed keys, later
    // assignments (and merges) overwriting earlier ones.
    struct Map {
        std::vector<std::pair<Scalar, json::Value>> entries;
        std::unordered_map<std::string, size_t> index;

        void set(Scalar key, json::Value value) {
            std::string id(1, static_cast<char>('0' + static_cast<int>(key.type)));
            switch (key.type) {
                case ScalarType::Bool:
                    id += key.b ? "1" : "0";
                    break;
                case ScalarType::Int:
                    id += std::to_string(key.i);
                    break;
                case ScalarType::Uint:
                    id += std::to_string(key.u);
                    break;
                case ScalarType::Float:
                    id += formatGoFloat(key.f, false);
                    break;
                case ScalarType::BigInt:
                case ScalarType::String:
                    id += key.s;
                    break;
                case ScalarType::Null:
                    break;
            }
            auto [it, fresh] = index.emplace(std::move(id), entries.size());
            if (fresh) {
                entries.emplace_back(std::move(key), std::move(value));
            } else {
                entries[it->second].second = std::move(value);
            }
        }
    };

    // Where a node decodes to: a new value, an existing map (merge), or a
    // map key (which must be a scalar).
    struct Target {
        json::Value* value;
        Map* map;
        Scalar* key;
    };

    bool fail(std::string_view msg) {
        yamlErr_ = "yaml: ";
        yamlErr_ += msg;
        return false;
    }

    bool unmarshal(const Node& n, Target t) {
        decodeCount_++;
        if (aliasDepth_ > 0) {
            aliasCount_++;
        }
        if (aliasCount_ > 100 && decodeCount_ > 1000 &&
            static_cast<double>(aliasCount_) / static_cast<double>(decodeCount_) >
                allowedAliasRatio(decodeCount_)) {
            return fail("document contains excessive aliasing");
        }
        if (depth_ >= kMaxDepth) {
            return fail(kMaxDepthError);
        }
        depth_++;
        bool ok = dispatch(n, t);
        depth_--;
        return ok;
    }

    bool dispatch(const Node& n, Target t) {
        switch (n.kind) {
            case NodeKind::Scalar:
                return scalar(n, t);
            case NodeKind::Alias:
                return alias(n, t);
            case NodeKind::Mapping:
                if (t.map != nullptr) {
                    return fill(n, *t.map);
                }
                [[fallthrough]];
            case NodeKind::Sequence: {
                json::Value v;
                bool ok = n.kind == NodeKind::Mapping ? mapping(n, v) : sequence(n, v);
                if (!ok) {
                    return false;
                }
                if (t.key != nullptr) {
                    return failInvalidKey(v);
                }
                *t.value = std::move(v);
                return true;
            }
        }
        return false;
    }

    [[gnu::noinline]] bool failInvalidKey(const json::Value& key) {
        return fail("invalid map key: " + goSyntax(key));
    }

    [[gnu::noinline]] bool failSelfAlias(const Node& n) {
        return fail("anchor '" + n.value + "' value contains itself");
    }

    bool alias(const Node& n, Target t) {
        if (activeAliases_.count(&n) != 0) {
            return failSelfAlias(n);
        }
        activeAliases_.insert(&n);
        aliasDepth_++;
        bool ok = unmarshal(*n.alias, t);
        aliasDepth_--;
        activeAliases_.erase(&n);
        return ok;
    }

    // Kept out of line, like finish(), so the recursion's frames stay small.
    [[gnu::noinline]] bool scalar(const Node& n, Target t) {
        Scalar s;
        if (std::optional<std::string> err = resolveScalar(n.tag, n.value, n.implicit, &s)) {
            return fail(*err);
        }
        if (t.key != nullptr) {
            *t.key = std::move(s);
            return true;
        }
        toJson(s, *t.value);
        return true;
    }

    // A scalar as json.Marshal writes it and a JSON parser reads it back.
    void toJson(const Scalar& s, json::Value& v) {
        switch (s.type) {
            case ScalarType::Null:
                v.SetNull();
                break;
            case ScalarType::Bool:
                v.SetBool(s.b);
                break;
            case ScalarType::Int:
                v.SetInt64(s.i);
                break;
            case ScalarType::Uint:
                v.SetUint64(s.u);
                break;
            case ScalarType::BigInt:
                v.SetDouble(s.f);
                break;
            case ScalarType::String:
                v.SetString(s.s.data(), static_cast<rapidjson::SizeType>(s.s.size()), a_);
                break;
            case ScalarType::Float:
                floatToJson(s.f, v);
                break;
        }
    }

    void floatToJson(double d, json::Value& v) {
        if (!std::isfinite(d)) {
            if (!jsonErr_) {
                jsonErr_ = "json: unsupported value: " + formatGoFloat(d, false);
            }
            v.SetNull();
        } else if (d == std::trunc(d) && std::fabs(d) < 1e21) {
            // Go writes it without a fraction, so it reads back as an integer.
            if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
                v.SetInt64(static_cast<int64_t>(d));
            } else if (d >= 0 && d < 18446744073709551616.0) {
                v.SetUint64(static_cast<uint64_t>(d));
            } else {
                v.SetDouble(d);
            }
        } else {
            v.SetDouble(d);
        }
    }

    bool mapping(const Node& n, json::Value& out) {
        Map m;
        if (!fill(n, m)) {
            return false;
        }
        finish(m, out);
        return true;
    }

    // JSON keys are strings; Go's encoding/json writes them sorted.
    [[gnu::noinline]] void finish(Map& m, json::Value& out) {
        std::map<std::string, json::Value*> sorted;
        for (auto& [key, value] : m.entries) {
            std::optional<std::string> k = keyString(key, value);
            if (k) {
                sorted[*k] = &value;
            }
        }
        out.SetObject();
        for (auto& [k, value] : sorted) {
            out.AddMember(json::stringValue(k, a_), std::move(*value), a_);
        }
    }

    bool fill(const Node& n, Map& m) {
        for (size_t i = 0; i + 1 < n.children.size(); i += 2) {
            const Node& k = *n.children[i];
            const Node& v = *n.children[i + 1];
            bool isMerge =
                k.kind == NodeKind::Scalar && k.value == "<<" && (k.implicit || k.tag == kMergeTag);
            if (isMerge) {
                if (!merge(v, m)) {
                    return false;
                }
                continue;
            }
            Scalar key;
            json::Value value;
            if (!unmarshal(k, Target{nullptr, nullptr, &key}) ||
                !unmarshal(v, Target{&value, nullptr, nullptr})) {
                return false;
            }
            m.set(std::move(key), std::move(value));
        }
        return true;
    }

    // A '<<' key: a mapping, an alias of one, or a sequence of those, whose
    // entries are assigned into `m` (earlier sequence items win).
    [[gnu::noinline]] bool merge(const Node& n, Map& m) {
        auto isMap = [](const Node& x) {
            return x.kind == NodeKind::Mapping ||
                   (x.kind == NodeKind::Alias && x.alias->kind == NodeKind::Mapping);
        };
        if (n.kind == NodeKind::Sequence) {
            for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
                if (!isMap(**it)) {
                    return fail("map merge requires map or sequence of maps as the value");
                }
                if (!unmarshal(**it, Target{nullptr, &m, nullptr})) {
                    return false;
                }
            }
            return true;
        }
        if (!isMap(n)) {
            return fail("map merge requires map or sequence of maps as the value");
        }
        return unmarshal(n, Target{nullptr, &m, nullptr});
    }

    bool sequence(const Node& n, json::Value& out) {
        out.SetArray();
        out.Reserve(static_cast<rapidjson::SizeType>(n.children.size()), a_);
        for (const Node* child : n.children) {
            json::Value v;
            if (!unmarshal(*child, Target{&v, nullptr, nullptr})) {
                return false;
            }
            out.PushBack(std::move(v), a_);
        }
        return true;
    }

    // sigs.k8s.io/yaml's conversion of a map key to a JSON object key.
    std::optional<std::string> keyString(const Scalar& key, const json::Value& value) {
        switch (key.type) {
            case ScalarType::String:
                return key.s;
            case ScalarType::Int:
                return std::to_string(key.i);
            case ScalarType::Bool:
                return key.b ? "true" : "false";
            case ScalarType::Float: {
                std::string s = formatGoFloat(key.f, true);
                return s == "+Inf" ? ".inf" : s == "-Inf" ? "-.inf" : s == "NaN" ? ".nan" : s;
            }
            case ScalarType::Uint: {
                char hex[32];
                std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(key.u));
                unsupportedKey("uint64", hex, value);
                return std::nullopt;
            }
            case ScalarType::BigInt:
                unsupportedKey("*big.Int", key.s, value);
                return std::nullopt;
            case ScalarType::Null:
                unsupportedKey("%!s(<nil>)", "<nil>", value);
                return std::nullopt;
        }
        return std::nullopt;
    }

    void unsupportedKey(std::string_view type, std::string_view key, const json::Value& value) {
        if (!keyErr_) {
            keyErr_ = "unsupported map key of type: " + std::string(type) +
                      ", key: " + std::string(key) + ", value: " + goSyntax(value);
        }
    }

    json::Allocator& a_;
    std::string yamlErr_;
    std::optional<std::string> keyErr_;   // reported after any yaml error
    std::optional<std::string> jsonErr_;  // reported last, as json.Marshal runs last
    int64_t decodeCount_ = 0;
    int64_t aliasCount_ = 0;
    int aliasDepth_ = 0;
    int depth_ = 0;
    std::unordered_set<const Node*> activeAliases_;
};

// Reads documents from `text` until the stream ends (or after the first when
// `firstOnly`), converting each into a json::Document.
std::optional<std::string> convert(std::string_view text, bool firstOnly,
                                   std::vector<json::Document>& docs) {
    Events events(text);
    if (!events.next()) {
        return kErrorPrefix + events.error();
    }
    while (true) {
        if (!events.next()) {
            return kErrorPrefix + events.error();
        }
        if (events.type() != YAML_DOCUMENT_START_EVENT) {
            return std::nullopt;
        }
        Tree tree;
        TreeReader reader(events, tree);
        if (!reader.document()) {
            return kErrorPrefix + reader.error();
        }
        json::Document& doc = docs.emplace_back();
        Decoder decoder(doc.GetAllocator());
        if (std::optional<std::string> err = decoder.decode(tree.root, doc)) {
            return err;
        }
        if (firstOnly) {
            return std::nullopt;
        }
    }
}

}  // namespace

std::optional<std::string> toJson(std::string_view text, json::Document& doc) {
    std::vector<json::Document> docs;
    std::optional<std::string> err = convert(text, true, docs);
    if (err) {
        return err;
    }
    if (docs.empty()) {
        doc.SetNull();
    } else {
        doc.Swap(docs.front());
    }
    return std::nullopt;
}

std::optional<std::string> toJsonStream(std::string_view text, std::vector<json::Document>& docs) {
    docs.clear();
    std::optional<std::string> err = convert(text, false, docs);
    if (err) {
        docs.clear();
    }
    return err;
}

}  // namespace kube::util::yaml
