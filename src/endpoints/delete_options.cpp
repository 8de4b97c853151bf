#include "endpoints/delete_options.hpp"

#include <cctype>
#include <charconv>
#include <set>
#include <string>

#include "endpoints/negotiation.hpp"
#include "endpoints/protobuf_codec.hpp"
#include "kapi/openapi.pb.h"
#include "registry/validation.hpp"
#include "util/json.hpp"
#include "util/yaml.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

using registry::validation::goQuote;

// A body that is not DeleteOptions is the client's error: 400 with the
// decoder's message. (kube-apiserver 1.26 hands the decoder's error on as a
// 500 without a reason; a 500 would tell clients the server failed.)
meta::Status decodeFailure(std::string message) {
    return meta::Status::badRequest(std::move(message));
}

// Whether kube's meta scheme (metainternalversion/scheme) registers `kind`
// in `apiVersion` as a type other than DeleteOptions.
bool otherMetaKind(std::string_view apiVersion, std::string_view kind) {
    static const std::set<std::string_view> unversioned = {"Status", "APIVersions", "APIGroupList",
                                                           "APIGroup", "APIResourceList"};
    static const std::set<std::string_view> v1 = {"ListOptions",
                                                  "GetOptions",
                                                  "CreateOptions",
                                                  "UpdateOptions",
                                                  "PatchOptions",
                                                  "Table",
                                                  "TableOptions",
                                                  "PartialObjectMetadata",
                                                  "PartialObjectMetadataList",
                                                  "WatchEvent"};
    static const std::set<std::string_view> v1beta1 = {"Table", "PartialObjectMetadata",
                                                       "PartialObjectMetadataList"};
    bool metaVersion =
        apiVersion == "v1" || apiVersion == "meta.k8s.io/v1" || apiVersion == "meta.k8s.io/v1beta1";
    return (metaVersion && unversioned.contains(kind)) ||
           (apiVersion == "meta.k8s.io/v1" && v1.contains(kind)) ||
           (apiVersion == "meta.k8s.io/v1beta1" && v1beta1.contains(kind));
}

// The kind check of the decoder: DeleteOptions (or no kind) in any version
// is taken; anything else is refused in the meta scheme's words.
std::optional<std::string> checkKind(std::string_view apiVersion, std::string_view kind) {
    if (kind.empty() || kind == "DeleteOptions") {
        return std::nullopt;
    }
    std::string version(apiVersion.empty() ? "meta.k8s.io/v1" : apiVersion);
    if (otherMetaKind(version, kind)) {
        return "converting (v1." + std::string(kind) +
               ") to (v1.DeleteOptions): unknown conversion";
    }
    return "no kind \"" + std::string(kind) + "\" is registered for version \"" + version +
           "\" in scheme \"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/"
           "register.go:27\"";
}

// A JSON number as Go's decoder quotes it in a type error.
std::string numberText(const json::Value& v) {
    if (v.IsInt64()) {
        return std::to_string(v.GetInt64());
    }
    if (v.IsUint64()) {
        return std::to_string(v.GetUint64());
    }
    char buf[40];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v.GetDouble());
        if (std::strtod(buf, nullptr) == v.GetDouble()) {
            break;
        }
    }
    return buf;
}

// Decodes a JSON DeleteOptions as encoding/json decodes into the Go struct:
// names match exactly, a later key overrides an earlier one, null leaves a
// pointer unset, unknown keys are ignored, and the first value of the wrong
// type is the error (the rest is still read).
class JsonReader {
  public:
    std::optional<std::string> read(const json::Value& doc, registry::DeleteOptions* out,
                                    std::vector<std::string>* dryRun) {
        dryRun_ = dryRun;
        if (doc.IsNull()) {
            return std::nullopt;
        }
        if (!doc.IsObject()) {
            return "couldn't get version/kind; json parse error: json: cannot unmarshal " +
                   std::string(json::typeName(doc)) +
                   " into Go value of type struct { APIVersion string "
                   "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                   "\"json:\\\"kind,omitempty\\\"\" }";
        }
        // First what the serializer sniffs: apiVersion and kind.
        std::string apiVersion, kind;
        for (const auto& m : doc.GetObject()) {
            std::string_view name = json::view(m.name);
            if (name != "apiVersion" && name != "kind") {
                continue;
            }
            if (m.value.IsString()) {
                (name == "kind" ? kind : apiVersion) = std::string(json::view(m.value));
            } else if (!m.value.IsNull()) {
                return "couldn't get version/kind; json parse error: json: cannot unmarshal " +
                       std::string(json::typeName(m.value)) + " into Go struct field ." +
                       std::string(name) + " of type string";
            }
        }
        if (auto e = checkKind(apiVersion, kind)) {
            return e;
        }
        for (const auto& m : doc.GetObject()) {
            field(json::view(m.name), m.value, out);
        }
        return error_;
    }

  private:
    void mismatch(const json::Value& v, std::string_view goStruct, std::string_view path,
                  std::string_view goType) {
        if (error_) {
            return;
        }
        std::string value(json::typeName(v));
        // A number that does not fit a numeric field is quoted with its value.
        if (v.IsNumber() && goType == "int64") {
            value += " " + numberText(v);
        }
        error_ = "json: cannot unmarshal " + value + " into Go struct field " +
                 std::string(goStruct) + "." + std::string(path) + " of type " +
                 std::string(goType);
    }

    // A string or null into a *string-like field of `goStruct`.
    void optionalString(const json::Value& v, std::string_view goStruct, std::string_view path,
                        std::string_view goType, std::optional<std::string>* out) {
        if (v.IsNull()) {
            out->reset();
        } else if (v.IsString()) {
            *out = std::string(json::view(v));
        } else {
            mismatch(v, goStruct, path, goType);
        }
    }

    void field(std::string_view name, const json::Value& v, registry::DeleteOptions* out) {
        if (name == "gracePeriodSeconds") {
            if (v.IsNull()) {
                out->gracePeriodSeconds.reset();
            } else if (v.IsInt64()) {
                out->gracePeriodSeconds = v.GetInt64();
            } else {
                mismatch(v, "DeleteOptions", name, "int64");
            }
        } else if (name == "preconditions") {
            if (v.IsNull()) {
                out->uid.reset();
                out->resourceVersion.reset();
            } else if (!v.IsObject()) {
                mismatch(v, "DeleteOptions", name, "v1.Preconditions");
            } else {
                for (const auto& m : v.GetObject()) {
                    std::string_view key = json::view(m.name);
                    if (key == "uid") {
                        optionalString(m.value, "Preconditions", "preconditions.uid", "types.UID",
                                       &out->uid);
                    } else if (key == "resourceVersion") {
                        optionalString(m.value, "Preconditions", "preconditions.resourceVersion",
                                       "string", &out->resourceVersion);
                    }
                }
            }
        } else if (name == "orphanDependents") {
            if (v.IsNull()) {
                out->orphanDependents.reset();
            } else if (v.IsBool()) {
                out->orphanDependents = v.GetBool();
            } else {
                mismatch(v, "DeleteOptions", name, "bool");
            }
        } else if (name == "propagationPolicy") {
            optionalString(v, "DeleteOptions", name, "v1.DeletionPropagation",
                           &out->propagationPolicy);
        } else if (name == "dryRun") {
            dryRun_->clear();
            if (v.IsNull()) {
                // A nil slice.
            } else if (!v.IsArray()) {
                mismatch(v, "DeleteOptions", name, "[]string");
            } else {
                for (const json::Value& item : v.GetArray()) {
                    if (item.IsString()) {
                        dryRun_->emplace_back(json::view(item));
                    } else if (item.IsNull()) {
                        dryRun_->emplace_back();
                    } else {
                        mismatch(item, "DeleteOptions", name, "string");
                        dryRun_->emplace_back();
                    }
                }
            }
        }
    }

    std::vector<std::string>* dryRun_ = nullptr;
    std::optional<std::string> error_;
};

// The options of a protobuf body: a runtime.Unknown holding a DeleteOptions.
std::optional<std::string> readProtobuf(std::string_view body, registry::DeleteOptions* out,
                                        std::vector<std::string>* dryRun) {
    ProtobufEnvelope envelope;
    if (auto e = parseProtobufEnvelope(body, &envelope)) {
        return e;
    }
    if (auto e = checkKind(envelope.apiVersion, envelope.kind)) {
        return e;
    }
    kapi::openapi::DeleteOptions m;
    if (!m.ParseFromString(envelope.raw)) {
        return std::string("unexpected EOF");
    }
    if (m.has_graceperiodseconds()) {
        out->gracePeriodSeconds = m.graceperiodseconds();
    }
    if (m.has_preconditions()) {
        if (m.preconditions().has_uid()) {
            out->uid = m.preconditions().uid();
        }
        if (m.preconditions().has_resourceversion()) {
            out->resourceVersion = m.preconditions().resourceversion();
        }
    }
    if (m.has_orphandependents()) {
        out->orphanDependents = m.orphandependents();
    }
    if (m.has_propagationpolicy()) {
        out->propagationPolicy = m.propagationpolicy();
    }
    dryRun->assign(m.dryrun().begin(), m.dryrun().end());
    return std::nullopt;
}

// The options of the query string, as the parameter codec converts them.
bool readQuery(const util::Query& q, registry::DeleteOptions* out, std::vector<std::string>* dryRun,
               meta::Status* error) {
    *dryRun = q.values("dryRun");
    if (auto v = q.get("gracePeriodSeconds")) {
        std::string why;
        std::optional<int64_t> n = util::Query::parseInt(*v, &why);
        if (!n) {
            *error =
                meta::Status::badRequest("strconv.ParseInt: parsing " + goQuote(*v) + ": " + why);
            return false;
        }
        out->gracePeriodSeconds = n;
    }
    if (auto v = q.get("orphanDependents")) {
        std::string lower = *v;
        for (char& c : lower) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        out->orphanDependents = !(*v == "0" || lower == "false");
    }
    if (auto v = q.get("propagationPolicy")) {
        out->propagationPolicy = *v;
    }
    return true;
}

// metav1 validation.ValidateDeleteOptions.
std::vector<meta::StatusCause> validate(const registry::DeleteOptions& o,
                                        const std::vector<std::string>& dryRun) {
    std::vector<meta::StatusCause> causes;
    const std::optional<std::string>& policy = o.propagationPolicy;
    if (o.orphanDependents && policy) {
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: " + goQuote(*policy) +
                              ": orphanDependents and deletionPropagation cannot be both set",
                          "propagationPolicy"});
    }
    if (policy && *policy != "Foreground" && *policy != "Background" && *policy != "Orphan") {
        causes.push_back({"FieldValueNotSupported",
                          "Unsupported value: " + goQuote(*policy) +
                              ": supported values: \"Foreground\", \"Background\", \"Orphan\", "
                              "\"nil\"",
                          "propagationPolicy"});
    }
    bool onlyAll = true;
    for (const std::string& v : dryRun) {
        onlyAll = onlyAll && v == "All";
    }
    if (!onlyAll) {
        std::string list;
        for (const std::string& v : dryRun) {
            list += (list.empty() ? "" : ", ") + goQuote(v);
        }
        causes.push_back({"FieldValueNotSupported",
                          "Unsupported value: []string{" + list + "}: supported values: \"All\"",
                          "dryRun"});
    }
    return causes;
}

}  // namespace

std::optional<registry::DeleteOptions> readDeleteOptions(std::string_view body,
                                                         std::string_view contentType,
                                                         const util::Query& query,
                                                         meta::Status* error) {
    registry::DeleteOptions opts;
    std::vector<std::string> dryRun;
    if (body.empty()) {
        if (!readQuery(query, &opts, &dryRun, error)) {
            return std::nullopt;
        }
    } else {
        std::optional<InputForm> form = negotiateInput(contentType, error);
        if (!form) {
            return std::nullopt;
        }
        std::optional<std::string> failed;
        if (*form == InputForm::Protobuf) {
            failed = readProtobuf(body, &opts, &dryRun);
        } else {
            json::Document doc;
            if (*form == InputForm::Yaml) {
                failed = util::yaml::toJson(body, doc);
                constexpr std::string_view prefix = "error converting YAML to JSON: ";
                if (failed && failed->starts_with(prefix)) {
                    failed->erase(0, prefix.size());
                }
            } else if ((failed = json::parse(body, doc))) {
                failed = "couldn't get version/kind; json parse error: " + *failed;
            }
            if (!failed) {
                failed = JsonReader().read(doc, &opts, &dryRun);
            }
        }
        if (failed) {
            *error = decodeFailure(std::move(*failed));
            return std::nullopt;
        }
    }
    if (std::vector<meta::StatusCause> causes = validate(opts, dryRun); !causes.empty()) {
        *error = meta::Status::invalid({"meta.k8s.io", "DeleteOptions"}, "", std::move(causes));
        return std::nullopt;
    }
    opts.dryRun = !dryRun.empty();
    return opts;
}

}  // namespace kube::endpoints
