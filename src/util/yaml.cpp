#include "util/yaml.hpp"

#include <yaml.h>

#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "util/yaml_scalar.hpp"

namespace kube::util::yaml {

namespace {

constexpr std::string_view kMergeTag = "tag:yaml.org,2002:merge";

constexpr const char* kErrorPrefix = "error converting YAML to JSON: ";
// go-yaml's scanner refuses flow collections ('[', '{') nested deeper than
// this (max_flow_level). Nothing here recurses, so deeper block nesting or
// alias expansion costs no stack; the alias ratio below bounds expansion.
constexpr int kMaxFlowLevel = 10000;

// ---------------------------------------------------------------------------
// The node tree go-yaml's parser builds for one document.

enum class NodeKind { Scalar, Mapping, Sequence, Alias };

struct Node {
    NodeKind kind = NodeKind::Scalar;
    std::string value;      // scalar text; the anchor name of an alias
    std::string tag;        // long form ("tag:yaml.org,2002:int"), "" when absent
    bool implicit = false;  // plain scalar without a tag (or with "!")
    bool flow = false;      // a collection written in flow style ([...] or {...})
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
// so a self-referencing alias is caught by the decoder). Open collections are
// kept on a stack of their own, not in recursive calls.
class TreeReader {
  public:
    TreeReader(Events& events, Tree& tree) : events_(events), tree_(tree) {}

    bool document() {
        std::vector<Node*> open;
        int flowLevel = 0;
        while (true) {
            if (!advance()) {
                return false;
            }
            const yaml_event_t& e = events_.event();
            Node* n = nullptr;
            switch (e.type) {
                case YAML_SCALAR_EVENT:
                    n = &add(NodeKind::Scalar, e.data.scalar.anchor, e.data.scalar.tag);
                    n->value.assign(reinterpret_cast<const char*>(e.data.scalar.value),
                                    e.data.scalar.length);
                    n->implicit = e.data.scalar.plain_implicit != 0;
                    break;
                case YAML_ALIAS_EVENT:
                    n = alias(e);
                    if (n == nullptr) {
                        return false;
                    }
                    break;
                case YAML_SEQUENCE_START_EVENT:
                case YAML_MAPPING_START_EVENT: {
                    bool sequence = e.type == YAML_SEQUENCE_START_EVENT;
                    bool flow = sequence ? e.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
                                         : e.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
                    if (flow && ++flowLevel > kMaxFlowLevel) {
                        return tooDeep(e);
                    }
                    n = sequence ? &add(NodeKind::Sequence, e.data.sequence_start.anchor,
                                        e.data.sequence_start.tag)
                                 : &add(NodeKind::Mapping, e.data.mapping_start.anchor,
                                        e.data.mapping_start.tag);
                    n->flow = flow;
                    break;
                }
                case YAML_SEQUENCE_END_EVENT:
                case YAML_MAPPING_END_EVENT:
                    if (open.empty()) {
                        err_ = "yaml: unexpected event in document";
                        return false;
                    }
                    flowLevel -= open.back()->flow ? 1 : 0;
                    open.pop_back();
                    if (open.empty()) {
                        return advance();
                    }
                    continue;
                default:
                    err_ = "yaml: unexpected event in document";
                    return false;
            }
            if (open.empty()) {
                tree_.root = n;
            } else {
                open.back()->children.push_back(n);
            }
            if (n->kind == NodeKind::Sequence || n->kind == NodeKind::Mapping) {
                open.push_back(n);
            } else if (open.empty()) {
                return advance();
            }
        }
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

    Node& add(NodeKind kind, const yaml_char_t* anchor, const yaml_char_t* tag) {
        Node& n = tree_.nodes.emplace_back();
        n.kind = kind;
        n.tag = cstr(tag);
        if (anchor != nullptr) {
            tree_.anchors[cstr(anchor)] = &n;
        }
        return n;
    }

    Node* alias(const yaml_event_t& e) {
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

    // go-yaml's scanner error at the collection's first character: its line
    // is shown 1-based, and not at all on the first line.
    bool tooDeep(const yaml_event_t& e) {
        err_ = "yaml: ";
        if (e.start_mark.line != 0) {
            err_ += "line " + std::to_string(e.start_mark.line + 1) + ": ";
        }
        err_ += "exceeded max depth of " + std::to_string(kMaxFlowLevel);
        return false;
    }

    Events& events_;
    Tree& tree_;
    std::string err_;
};

// ---------------------------------------------------------------------------
// Decoding the tree into JSON, as go-yaml's decoder fills an interface{} and
// sigs.k8s.io/yaml then turns it into JSON.

// An approximation of Go's %#v of a decoded value, for error messages;
// nested values are walked with a stack of their own.
std::string goSyntax(const json::Value& root) {
    struct Open {
        const json::Value* v;
        rapidjson::SizeType next;
    };
    std::string out;
    std::vector<Open> open;
    const json::Value* v = &root;
    while (true) {
        if (v != nullptr) {
            if (v->IsArray() || v->IsObject()) {
                out += v->IsArray() ? "[]interface {}{" : "map[interface {}]interface {}{";
                open.push_back({v, 0});
            } else if (v->IsNull()) {
                out += "<nil>";
            } else if (v->IsString()) {
                json::appendQuoted(out, json::view(*v));
            } else {
                out += json::serialize(*v);
            }
        }
        if (open.empty()) {
            return out;
        }
        Open& top = open.back();
        rapidjson::SizeType n = top.v->IsArray() ? top.v->Size() : top.v->MemberCount();
        if (top.next == n) {
            out += "}";
            open.pop_back();
            v = nullptr;
            continue;
        }
        out += top.next == 0 ? "" : ", ";
        if (top.v->IsArray()) {
            v = &(*top.v)[top.next];
        } else {
            const auto& m = *(top.v->MemberBegin() + top.next);
            json::appendQuoted(out, json::view(m.name));
            out += ":";
            v = &m.value;
        }
        top.next++;
    }
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

// Decodes a tree as go-yaml's decoder.unmarshal does, node by node, with the
// collections being filled on a stack of frames rather than in recursive
// calls: a frame's children write into its slots, and the frame moves its
// slot into place when it is next on top.
class Decoder {
  public:
    explicit Decoder(json::Allocator& a) : a_(a) {}

    // Decodes `root` (null for an empty stream) into `out`; on failure
    // returns the full message.
    std::optional<std::string> decode(const Node* root, json::Value& out) {
        out.SetNull();
        if (root != nullptr && !run(*root, &out)) {
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

    // A node being decoded. A sequence fills `array` through `slot`; a
    // mapping fills its own map (or a merge's target map `into`) through
    // `key` and `slot`, pair by pair; an alias only marks its expansion as
    // active until the frame above it is done.
    struct Frame {
        Frame(const Node* n, Target t) : node(n), target(t) {}

        const Node* node;
        Target target;
        size_t next = 0;       // sequence: the next child; mapping: the next pair
        int step = 0;          // mapping: 0 next pair, 1 key done, 2 value done, 3 merging
        size_t merged = 0;     // mapping, merging a sequence: items done
        bool pending = false;  // sequence: `slot` holds the child just decoded
        json::Value array;
        json::Value slot;
        Scalar key;
        std::unique_ptr<Map> own;
        Map* into = nullptr;
    };

    bool fail(std::string_view msg) {
        yamlErr_ = "yaml: ";
        yamlErr_ += msg;
        return false;
    }

    bool run(const Node& root, json::Value* out) {
        if (!enter(root, Target{out, nullptr, nullptr})) {
            return false;
        }
        while (!frames_.empty()) {
            Frame& f = frames_.back();
            bool ok = f.node->kind == NodeKind::Alias      ? leaveAlias(f)
                      : f.node->kind == NodeKind::Sequence ? stepSequence(f)
                                                           : stepMapping(f);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    // go-yaml's unmarshal: counts the node against the alias budget, then
    // decodes a scalar at once or pushes a frame for anything else.
    bool enter(const Node& n, Target t) {
        decodeCount_++;
        if (aliasDepth_ > 0) {
            aliasCount_++;
        }
        if (aliasCount_ > 100 && decodeCount_ > 1000 &&
            static_cast<double>(aliasCount_) / static_cast<double>(decodeCount_) >
                allowedAliasRatio(decodeCount_)) {
            return fail("document contains excessive aliasing");
        }
        switch (n.kind) {
            case NodeKind::Scalar:
                return scalar(n, t);
            case NodeKind::Alias:
                if (activeAliases_.count(&n) != 0) {
                    return fail("anchor '" + n.value + "' value contains itself");
                }
                activeAliases_.insert(&n);
                aliasDepth_++;
                frames_.emplace_back(&n, t);
                return enter(*n.alias, t);
            case NodeKind::Mapping: {
                Frame& f = frames_.emplace_back(&n, t);
                if (t.map != nullptr) {
                    f.into = t.map;
                } else {
                    f.own = std::make_unique<Map>();
                    f.into = f.own.get();
                }
                return true;
            }
            case NodeKind::Sequence: {
                Frame& f = frames_.emplace_back(&n, t);
                f.array.SetArray();
                f.array.Reserve(static_cast<rapidjson::SizeType>(n.children.size()), a_);
                return true;
            }
        }
        return false;
    }

    bool leaveAlias(Frame& f) {
        aliasDepth_--;
        activeAliases_.erase(f.node);
        frames_.pop_back();
        return true;
    }

    // A finished sequence or mapping goes where its frame's target says.
    bool done(Frame& f, json::Value& v) {
        Target t = f.target;
        if (t.key != nullptr) {
            return fail("invalid map key: " + goSyntax(v));
        }
        *t.value = std::move(v);
        frames_.pop_back();
        return true;
    }

    bool stepSequence(Frame& f) {
        if (f.pending) {
            f.array.PushBack(std::move(f.slot), a_);
            f.pending = false;
        }
        if (f.next == f.node->children.size()) {
            return done(f, f.array);
        }
        f.pending = true;
        return enter(*f.node->children[f.next++], Target{&f.slot, nullptr, nullptr});
    }

    bool stepMapping(Frame& f) {
        const std::vector<const Node*>& c = f.node->children;
        switch (f.step) {
            case 1:
                f.step = 2;
                return enter(*c[f.next + 1], Target{&f.slot, nullptr, nullptr});
            case 2:
                f.into->set(std::move(f.key), std::move(f.slot));
                f.key = Scalar();
                f.slot.SetNull();
                f.next += 2;
                f.step = 0;
                return true;
            case 3:
                return stepMerge(f);
            default:
                break;
        }
        if (f.next + 1 >= c.size()) {
            if (!f.own) {
                frames_.pop_back();  // merged into another frame's map
                return true;
            }
            json::Value v;
            finish(*f.own, v);
            return done(f, v);
        }
        const Node& k = *c[f.next];
        if (k.kind == NodeKind::Scalar && k.value == "<<" && (k.implicit || k.tag == kMergeTag)) {
            f.step = 3;
            f.merged = 0;
            return stepMerge(f);
        }
        f.step = 1;
        return enter(k, Target{nullptr, nullptr, &f.key});
    }

    // A '<<' key: a mapping, an alias of one, or a sequence of those, whose
    // entries are assigned into the frame's map (earlier sequence items win,
    // so the items are merged last to first).
    bool stepMerge(Frame& f) {
        const Node& v = *f.node->children[f.next + 1];
        auto isMap = [](const Node& x) {
            return x.kind == NodeKind::Mapping ||
                   (x.kind == NodeKind::Alias && x.alias->kind == NodeKind::Mapping);
        };
        const Node* item = nullptr;
        if (v.kind == NodeKind::Sequence) {
            if (f.merged < v.children.size()) {
                item = v.children[v.children.size() - 1 - f.merged];
            }
        } else if (f.merged == 0) {
            item = &v;
        }
        if (item == nullptr) {
            f.next += 2;
            f.step = 0;
            return true;
        }
        if (!isMap(*item)) {
            return fail("map merge requires map or sequence of maps as the value");
        }
        f.merged++;
        return enter(*item, Target{nullptr, f.into, nullptr});
    }

    bool scalar(const Node& n, Target t) {
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

    // JSON keys are strings; Go's encoding/json writes them sorted.
    void finish(Map& m, json::Value& out) {
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
    std::deque<Frame> frames_;  // a deque: a frame's slots stay put as frames are pushed
    std::string yamlErr_;
    std::optional<std::string> keyErr_;   // reported after any yaml error
    std::optional<std::string> jsonErr_;  // reported last, as json.Marshal runs last
    int64_t decodeCount_ = 0;
    int64_t aliasCount_ = 0;
    int aliasDepth_ = 0;
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
