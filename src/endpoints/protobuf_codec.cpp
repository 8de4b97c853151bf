#include "endpoints/protobuf_codec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "kapi/admissionregistration.pb.h"
#include "kapi/apiextensions.pb.h"
#include "kapi/apiregistration.pb.h"
#include "kapi/apps.pb.h"
#include "kapi/authentication.pb.h"
#include "kapi/authorization.pb.h"
#include "kapi/autoscaling.pb.h"
#include "kapi/autoscaling_v2.pb.h"
#include "kapi/batch.pb.h"
#include "kapi/certificates.pb.h"
#include "kapi/coordination.pb.h"
#include "kapi/core.pb.h"
#include "kapi/discovery.pb.h"
#include "kapi/events.pb.h"
#include "kapi/flowcontrol.pb.h"
#include "kapi/flowcontrol_v1beta3.pb.h"
#include "kapi/networking.pb.h"
#include "kapi/node.pb.h"
#include "kapi/opts.pb.h"
#include "kapi/policy.pb.h"
#include "kapi/rbac.pb.h"
#include "kapi/runtime.pb.h"
#include "kapi/scheduling.pb.h"
#include "kapi/storage.pb.h"
#include "registry/schema_fields.hpp"
#include "util/base64.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

namespace kube::endpoints {

namespace json = util::json;
namespace pb = google::protobuf;

namespace {

using FileList = std::vector<const pb::FileDescriptor*>;

// One message of every schema file with top-level kinds; referencing them
// also keeps their generated code linked in from the static library.
FileList schemaFiles() {
    return {kapi::core::v1::Namespace::descriptor()->file(),
            kapi::apps::v1::Deployment::descriptor()->file(),
            kapi::batch::v1::Job::descriptor()->file(),
            kapi::policy::v1::PodDisruptionBudget::descriptor()->file(),
            kapi::networking::v1::Ingress::descriptor()->file(),
            kapi::scheduling::v1::PriorityClass::descriptor()->file(),
            kapi::rbac::v1::Role::descriptor()->file(),
            kapi::coordination::v1::Lease::descriptor()->file(),
            kapi::storage::v1::StorageClass::descriptor()->file(),
            kapi::flowcontrol::v1::FlowSchema::descriptor()->file(),
            kapi::flowcontrol::v1beta3::FlowSchema::descriptor()->file(),
            kapi::autoscaling::v1::Scale::descriptor()->file(),
            kapi::autoscaling::v2::HorizontalPodAutoscaler::descriptor()->file(),
            kapi::node::v1::RuntimeClass::descriptor()->file(),
            kapi::authentication::v1::TokenReview::descriptor()->file(),
            kapi::authorization::v1::SubjectAccessReview::descriptor()->file(),
            kapi::apiextensions::v1::CustomResourceDefinition::descriptor()->file(),
            kapi::events::v1::Event::descriptor()->file(),
            kapi::certificates::v1::CertificateSigningRequest::descriptor()->file(),
            kapi::admissionregistration::v1::ValidatingWebhookConfiguration::descriptor()->file(),
            kapi::apiregistration::v1::APIService::descriptor()->file(),
            kapi::discovery::v1::EndpointSlice::descriptor()->file()};
}

void indexMessage(const pb::Descriptor* d, std::map<std::string, const pb::Descriptor*>& index) {
    const std::string& gvk = d->options().GetExtension(kapi::opt::gvk);
    if (!gvk.empty()) {
        index.emplace(gvk, d);
    }
    for (int i = 0; i < d->nested_type_count(); ++i) {
        indexMessage(d->nested_type(i), index);
    }
}

// "v1/Namespace", "apps/v1/Deployment" -> message; built once.
const std::map<std::string, const pb::Descriptor*>& messagesByKind() {
    static const auto index = [] {
        std::map<std::string, const pb::Descriptor*> out;
        for (const pb::FileDescriptor* file : schemaFiles()) {
            for (int i = 0; i < file->message_type_count(); ++i) {
                indexMessage(file->message_type(i), out);
            }
        }
        return out;
    }();
    return index;
}

const pb::Descriptor* findMessage(std::string_view apiVersion, std::string_view kind) {
    const auto& index = messagesByKind();
    auto it = index.find(std::string(apiVersion) + "/" + std::string(kind));
    return it == index.end() ? nullptr : it->second;
}

// Reads one varint at `*i`: 1 read, 0 ran off the end, -1 longer than 10 bytes.
int readVarint(std::string_view d, size_t* i, uint64_t* v) {
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*i >= d.size()) {
            return 0;
        }
        auto b = static_cast<uint8_t>(d[(*i)++]);
        r |= static_cast<uint64_t>(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *v = r;
            return 1;
        }
    }
    return -1;
}

// Whether some top-level field of `d` runs past its end, which Go reports
// as io.ErrUnexpectedEOF rather than as malformed data.
bool truncated(std::string_view d) {
    size_t i = 0;
    while (i < d.size()) {
        uint64_t tag = 0;
        uint64_t n = 0;
        int r = readVarint(d, &i, &tag);
        if (r <= 0) {
            return r == 0;
        }
        switch (tag & 7) {
            case 0:
                r = readVarint(d, &i, &n);
                if (r <= 0) {
                    return r == 0;
                }
                break;
            case 1:
            case 5:
                n = (tag & 7) == 1 ? 8 : 4;
                if (d.size() - i < n) {
                    return true;
                }
                i += n;
                break;
            case 2:
                r = readVarint(d, &i, &n);
                if (r <= 0) {
                    return r == 0;
                }
                if (n > d.size() - i) {
                    return true;
                }
                i += n;
                break;
            default:
                return false;
        }
    }
    return false;
}

std::string parseFailure(std::string_view data) {
    return truncated(data) ? "unexpected EOF" : "proto: cannot parse invalid wire-format data";
}

// Turns a message into JSON by the options of src/apis/proto/kapi/opts.proto.
class JsonWriter {
  public:
    explicit JsonWriter(json::Allocator& a) : a_(a) {}

    // On a field that cannot be represented, error() is set afterwards.
    json::Value message(const pb::Message& m) {
        const pb::Descriptor* d = m.GetDescriptor();
        const registry::SchemaFields& schema = registry::schemaFields(d);
        switch (static_cast<kapi::opt::JsonForm>(schema.form)) {
            case kapi::opt::TIME_RFC3339:
                return time(m);
            case kapi::opt::MICRO_TIME_RFC3339:
                return microTime(m);
            case kapi::opt::INT_OR_STRING:
                return intOrString(m);
            case kapi::opt::QUANTITY:
                return quantity(m);
            case kapi::opt::RAW_JSON:
            case kapi::opt::ANY_JSON:
                return rawJson(m);
            case kapi::opt::STRING_LIST:
                return stringList(m);
            case kapi::opt::UNION:
                return oneOf(m);
            case kapi::opt::OBJECT:
                break;
        }
        json::Value obj(rapidjson::kObjectType);
        for (int i = 0; i < d->field_count(); ++i) {
            field(m, d->field(i), schema.options[static_cast<size_t>(i)], obj);
        }
        return obj;
    }

    const std::optional<std::string>& error() const { return error_; }

  private:
    void field(const pb::Message& m, const pb::FieldDescriptor* f,
               const registry::SchemaFields::FieldOptions& o, json::Value& obj) {
        const pb::Reflection* r = m.GetReflection();
        const bool always = o.always;
        json::Value v;
        if (o.flatten) {
            // An embedded struct: its members join this object where it sits.
            json::Value inner = message(r->GetMessage(m, f));
            if (inner.IsObject()) {
                for (auto& member : inner.GetObject()) {
                    obj.AddMember(member.name, member.value, a_);
                }
            }
            return;
        }
        if (f->is_map()) {
            int n = r->FieldSize(m, f);
            if (n == 0 && !always) {
                return;
            }
            // Go cannot tell an empty map from nil after decoding: null.
            if (n > 0) {
                v = map(m, f);
            }
        } else if (f->is_repeated()) {
            int n = r->FieldSize(m, f);
            if (n == 0 && !always) {
                return;
            }
            if (n > 0) {
                v.SetArray();
                for (int i = 0; i < n; ++i) {
                    v.PushBack(repeatedItem(m, f, i), a_);
                }
            }
        } else if (o.ptr) {
            // A nil pointer: omitted, or null when the Go tag has no omitempty.
            if (!r->HasField(m, f)) {
                if (!always) {
                    return;
                }
            } else {
                v = singular(m, f);
            }
        } else if (f->type() == pb::FieldDescriptor::TYPE_BYTES && !r->HasField(m, f)) {
            // A nil []byte, which gogo does not write: null without omitempty
            // (a present empty one is a non-nil empty slice: "").
            if (!always) {
                return;
            }
        } else if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
            // A Go struct, not a pointer: written even when empty.
            v = message(r->GetMessage(m, f));
        } else {
            v = singular(m, f);
            if (!always && isZero(v)) {
                return;
            }
        }
        obj.AddMember(json::stringValue(*o.json, a_), v, a_);
    }

    // Go's encoding/json writes a whole float64 without a fraction ("10",
    // not "10.0").
    static json::Value number(double d) {
        if (d == std::trunc(d) && std::fabs(d) < 9e18) {
            return json::Value(static_cast<int64_t>(d));
        }
        return json::Value(d);
    }

    static bool isZero(const json::Value& v) {
        return (v.IsString() && v.GetStringLength() == 0) || (v.IsBool() && !v.GetBool()) ||
               (v.IsNumber() && v.GetDouble() == 0) || v.IsNull();
    }

    json::Value map(const pb::Message& m, const pb::FieldDescriptor* f) {
        const pb::Reflection* r = m.GetReflection();
        const pb::FieldDescriptor* keyField = f->message_type()->map_key();
        const pb::FieldDescriptor* valueField = f->message_type()->map_value();
        // Go writes map keys sorted; a key repeated on the wire keeps its last value.
        std::map<std::string, const pb::Message*> entries;
        for (int i = 0; i < r->FieldSize(m, f); ++i) {
            const pb::Message& entry = r->GetRepeatedMessage(m, f, i);
            entries[entry.GetReflection()->GetString(entry, keyField)] = &entry;
        }
        json::Value out(rapidjson::kObjectType);
        for (const auto& [key, entry] : entries) {
            out.AddMember(text(key), singular(*entry, valueField), a_);
        }
        return out;
    }

    json::Value singular(const pb::Message& m, const pb::FieldDescriptor* f) {
        const pb::Reflection* r = m.GetReflection();
        switch (f->cpp_type()) {
            case pb::FieldDescriptor::CPPTYPE_INT32:
                return json::Value(r->GetInt32(m, f));
            case pb::FieldDescriptor::CPPTYPE_INT64:
                return json::Value(static_cast<int64_t>(r->GetInt64(m, f)));
            case pb::FieldDescriptor::CPPTYPE_UINT32:
                return json::Value(r->GetUInt32(m, f));
            case pb::FieldDescriptor::CPPTYPE_UINT64:
                return json::Value(static_cast<uint64_t>(r->GetUInt64(m, f)));
            case pb::FieldDescriptor::CPPTYPE_DOUBLE:
                return number(r->GetDouble(m, f));
            case pb::FieldDescriptor::CPPTYPE_FLOAT:
                return json::Value(static_cast<double>(r->GetFloat(m, f)));
            case pb::FieldDescriptor::CPPTYPE_BOOL:
                return json::Value(r->GetBool(m, f));
            case pb::FieldDescriptor::CPPTYPE_ENUM:
                return json::Value(r->GetEnumValue(m, f));
            case pb::FieldDescriptor::CPPTYPE_STRING:
                return scalarString(r->GetString(m, f), f);
            case pb::FieldDescriptor::CPPTYPE_MESSAGE:
                return message(r->GetMessage(m, f));
        }
        return json::Value();
    }

    json::Value repeatedItem(const pb::Message& m, const pb::FieldDescriptor* f, int i) {
        const pb::Reflection* r = m.GetReflection();
        switch (f->cpp_type()) {
            case pb::FieldDescriptor::CPPTYPE_INT32:
                return json::Value(r->GetRepeatedInt32(m, f, i));
            case pb::FieldDescriptor::CPPTYPE_INT64:
                return json::Value(static_cast<int64_t>(r->GetRepeatedInt64(m, f, i)));
            case pb::FieldDescriptor::CPPTYPE_UINT32:
                return json::Value(r->GetRepeatedUInt32(m, f, i));
            case pb::FieldDescriptor::CPPTYPE_UINT64:
                return json::Value(static_cast<uint64_t>(r->GetRepeatedUInt64(m, f, i)));
            case pb::FieldDescriptor::CPPTYPE_DOUBLE:
                return number(r->GetRepeatedDouble(m, f, i));
            case pb::FieldDescriptor::CPPTYPE_FLOAT:
                return json::Value(static_cast<double>(r->GetRepeatedFloat(m, f, i)));
            case pb::FieldDescriptor::CPPTYPE_BOOL:
                return json::Value(r->GetRepeatedBool(m, f, i));
            case pb::FieldDescriptor::CPPTYPE_ENUM:
                return json::Value(r->GetRepeatedEnumValue(m, f, i));
            case pb::FieldDescriptor::CPPTYPE_STRING:
                return scalarString(r->GetRepeatedString(m, f, i), f);
            case pb::FieldDescriptor::CPPTYPE_MESSAGE:
                return message(r->GetRepeatedMessage(m, f, i));
        }
        return json::Value();
    }

    // []byte is base64 in Go's JSON.
    json::Value scalarString(const std::string& s, const pb::FieldDescriptor* f) {
        if (f->type() == pb::FieldDescriptor::TYPE_BYTES) {
            return json::stringValue(util::encodeBase64(s), a_);
        }
        return text(s);
    }

    // A string as kube shows it in JSON: proto2 strings are not checked on
    // the wire, and Go's encoder writes each invalid byte as U+FFFD.
    json::Value text(const std::string& s) {
        if (util::utf8::valid(s)) {
            return json::stringValue(s, a_);
        }
        return json::stringValue(util::utf8::toValid(s), a_);
    }

    const pb::FieldDescriptor* fieldNamed(const pb::Message& m, const char* name) {
        return m.GetDescriptor()->FindFieldByName(name);
    }

    json::Value time(const pb::Message& m) {
        const pb::Reflection* r = m.GetReflection();
        const pb::FieldDescriptor* seconds = fieldNamed(m, "seconds");
        const pb::FieldDescriptor* nanos = fieldNamed(m, "nanos");
        int64_t s = seconds ? r->GetInt64(m, seconds) : 0;
        int32_t ns = nanos ? r->GetInt32(m, nanos) : 0;
        if (s == 0 && ns == 0) {
            return json::Value();
        }
        return json::stringValue(util::time::formatUnixSeconds(s), a_);
    }

    // metav1.MicroTime: Go's layout "2006-01-02T15:04:05.000000Z07:00" in UTC,
    // the nanoseconds cut (not rounded) to microseconds.
    json::Value microTime(const pb::Message& m) {
        const pb::Reflection* r = m.GetReflection();
        const pb::FieldDescriptor* seconds = fieldNamed(m, "seconds");
        const pb::FieldDescriptor* nanos = fieldNamed(m, "nanos");
        int64_t s = seconds ? r->GetInt64(m, seconds) : 0;
        int64_t ns = nanos ? r->GetInt32(m, nanos) : 0;
        if (s == 0 && ns == 0) {
            return json::Value();
        }
        // Out-of-range nanos carry into the seconds, as Go's time.Unix does.
        // (Go's int64 arithmetic wraps; so does this, without C++'s UB.)
        auto wrapAdd = [](int64_t x, int64_t y) {
            return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
        };
        s = wrapAdd(s, ns / 1000000000);
        ns %= 1000000000;
        if (ns < 0) {
            s = wrapAdd(s, -1);
            ns += 1000000000;
        }
        std::string text = util::time::formatUnixSeconds(s);  // ends in 'Z'
        char micros[16];
        std::snprintf(micros, sizeof micros, ".%06d", static_cast<int>(ns / 1000));
        text.insert(text.size() - 1, micros);
        return json::stringValue(text, a_);
    }

    json::Value intOrString(const pb::Message& m) {
        const pb::Reflection* r = m.GetReflection();
        const pb::FieldDescriptor* type = fieldNamed(m, "type");
        const pb::FieldDescriptor* intVal = fieldNamed(m, "intVal");
        const pb::FieldDescriptor* strVal = fieldNamed(m, "strVal");
        if (type && strVal && r->GetInt64(m, type) == 1) {
            return text(r->GetString(m, strVal));
        }
        return json::Value(intVal ? r->GetInt32(m, intVal) : 0);
    }

    json::Value quantity(const pb::Message& m) {
        const pb::FieldDescriptor* f = fieldNamed(m, "string");
        std::string s = f ? m.GetReflection()->GetString(m, f) : std::string();
        return text(s.empty() ? "0" : s);
    }

    // Go's generated code decodes an ExtraValue map value into a non-nil
    // slice, so even an empty one is written as [].
    json::Value stringList(const pb::Message& m) {
        const pb::Descriptor* d = m.GetDescriptor();
        const pb::Reflection* r = m.GetReflection();
        json::Value out(rapidjson::kArrayType);
        if (d->field_count() == 0) {
            return out;
        }
        for (int i = 0; i < r->FieldSize(m, d->field(0)); ++i) {
            out.PushBack(text(r->GetRepeatedString(m, d->field(0), i)), a_);
        }
        return out;
    }

    // A UNION: the list when it has items, else the message when set, else
    // the boolean (false when unset), else null.
    json::Value oneOf(const pb::Message& m) {
        const pb::Descriptor* d = m.GetDescriptor();
        const pb::Reflection* r = m.GetReflection();
        auto [list, object, flag] = unionFields(d);
        if (list && r->FieldSize(m, list) > 0) {
            json::Value out(rapidjson::kArrayType);
            for (int i = 0; i < r->FieldSize(m, list); ++i) {
                out.PushBack(repeatedItem(m, list, i), a_);
            }
            return out;
        }
        if (object && r->HasField(m, object)) {
            return message(r->GetMessage(m, object));
        }
        if (flag) {
            return json::Value(r->GetBool(m, flag));
        }
        return json::Value();
    }

    json::Value rawJson(const pb::Message& m) {
        const pb::Descriptor* d = m.GetDescriptor();
        if (d->field_count() == 0) {
            return json::Value();
        }
        std::string raw = m.GetReflection()->GetString(m, d->field(0));
        if (raw.empty()) {
            return json::Value();
        }
        // Parsed like a JSON body: bounded depth, U+FFFD for invalid UTF-8.
        json::Document doc;
        if (auto why = json::parse(raw, doc)) {
            // kube's field manager drops managed fields it cannot decode, as
            // this server replaces a client's anyway; other raw JSON is the
            // object's own and must be JSON.
            if (d->name() != "FieldsV1") {
                error_ = d->name() + ": " + *why;
            }
            return json::Value();
        }
        return json::Value(doc, a_);
    }

    json::Allocator& a_;
    std::optional<std::string> error_;
};

}  // namespace

std::optional<std::string> parseProtobufEnvelope(std::string_view body, ProtobufEnvelope* out) {
    if (body.empty()) {
        return "empty data";
    }
    if (!body.starts_with(kProtobufMagic)) {
        return "provided data does not appear to be a protobuf message, expected prefix "
               "[107 56 115 0]";
    }
    body.remove_prefix(kProtobufMagic.size());
    if (body.empty()) {
        return "empty body";
    }
    kapi::runtime::Unknown unknown;
    if (!unknown.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
        return parseFailure(body);
    }
    out->apiVersion = unknown.typemeta().apiversion();
    out->kind = unknown.typemeta().kind();
    out->raw = std::move(*unknown.mutable_raw());
    return std::nullopt;
}

void prepareProtobufSchemas() {
    std::vector<const pb::Descriptor*> roots;
    for (const pb::FileDescriptor* file : schemaFiles()) {
        for (int i = 0; i < file->message_type_count(); ++i) {
            roots.push_back(file->message_type(i));
        }
    }
    registry::prepareSchemaFields(roots);
    messagesByKind();
}

UnionFields unionFields(const pb::Descriptor* d) {
    UnionFields u;
    for (int i = 0; i < d->field_count(); ++i) {
        const pb::FieldDescriptor* f = d->field(i);
        if (f->is_repeated()) {
            u.list = f;
        } else if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
            u.object = f;
        } else if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_BOOL) {
            u.flag = f;
        }
    }
    return u;
}

bool hasProtobufSchema(std::string_view apiVersion, std::string_view kind) {
    return findMessage(apiVersion, kind) != nullptr;
}

const pb::Descriptor* protobufSchema(std::string_view apiVersion, std::string_view kind) {
    return findMessage(apiVersion, kind);
}

std::optional<std::string> protobufToJson(const ProtobufEnvelope& envelope, json::Document& out) {
    const pb::Descriptor* d = findMessage(envelope.apiVersion, envelope.kind);
    if (!d) {
        return "no protobuf schema is known for kind \"" + envelope.kind + "\" in version \"" +
               envelope.apiVersion + "\"";
    }
    std::unique_ptr<pb::Message> m(pb::MessageFactory::generated_factory()->GetPrototype(d)->New());
    if (!m->ParseFromString(envelope.raw)) {
        return parseFailure(envelope.raw);
    }
    auto& a = out.GetAllocator();
    JsonWriter writer(a);
    json::Value fields = writer.message(*m);
    if (writer.error()) {
        return *writer.error();
    }
    out.SetObject();
    out.AddMember("kind", json::stringValue(envelope.kind, a), a);
    out.AddMember("apiVersion", json::stringValue(envelope.apiVersion, a), a);
    for (auto& member : fields.GetObject()) {
        out.AddMember(member.name, member.value, a);
    }
    return std::nullopt;
}

std::optional<std::string> protobufMessageToJson(const pb::Message& m, json::Document& out) {
    JsonWriter writer(out.GetAllocator());
    json::Value v = writer.message(m);
    if (writer.error()) {
        return *writer.error();
    }
    // The members live in out's allocator: the root just takes them over.
    static_cast<json::Value&>(out).Swap(v);
    return std::nullopt;
}

}  // namespace kube::endpoints
