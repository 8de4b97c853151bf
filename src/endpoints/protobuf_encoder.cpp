#include "endpoints/protobuf_encoder.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include <google/protobuf/arena.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>

#include "endpoints/protobuf_codec.hpp"
#include "endpoints/protobuf_map_free_schema.hpp"
#include "kapi/meta.pb.h"
#include "kapi/opts.pb.h"
#include "registry/schema_fields.hpp"
#include "util/base64.hpp"
#include "util/deep_stack.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

namespace kube::endpoints {

namespace json = util::json;
namespace pb = google::protobuf;

namespace {

using Field = pb::FieldDescriptor;

void appendVarint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}

// A length-delimited field: tag (wire type 2), length, bytes.
void appendBytesField(std::string& out, int number, std::string_view bytes) {
    appendVarint(out, static_cast<uint64_t>(number) << 3 | 2);
    appendVarint(out, bytes.size());
    out.append(bytes);
}

bool isAbsent(const json::Value* v) {
    return v == nullptr || v->IsNull();
}

// Fills a message from our JSON form by the options of
// src/apis/proto/kapi/opts.proto: the mirror image of the JSON writer, with
// Go's marshal rules for presence (spec/protobuf.md §3).
class ProtoWriter {
  public:
    // `v` is the message's JSON value, nullptr when absent. False with
    // error() set on a value of the wrong type.
    bool message(const json::Value* v, pb::Message& m) {
        const pb::Descriptor* d = m.GetDescriptor();
        const registry::SchemaFields& schema = registry::schemaFields(d);
        switch (static_cast<kapi::opt::JsonForm>(schema.form)) {
            case kapi::opt::TIME_RFC3339:
                return time(v, m, false);
            case kapi::opt::MICRO_TIME_RFC3339:
                return time(v, m, true);
            case kapi::opt::INT_OR_STRING:
                return intOrString(v, m);
            case kapi::opt::QUANTITY:
                return quantity(v, m);
            case kapi::opt::RAW_JSON:
            case kapi::opt::ANY_JSON:
                return rawJson(v, m);
            case kapi::opt::STRING_LIST:
                return stringList(v, m);
            case kapi::opt::UNION:
                return oneOf(v, m);
            case kapi::opt::OBJECT:
                break;
        }
        if (!isAbsent(v) && !v->IsObject()) {
            return wrongType(*v, "an object");
        }
        for (int i = 0; i < d->field_count(); ++i) {
            if (!field(v, m, d->field(i), schema.options[static_cast<size_t>(i)])) {
                return false;
            }
        }
        return true;
    }

    const std::string& error() const { return error_; }

  private:
    bool fail(std::string why) {
        std::string path;
        for (const std::string* name : path_) {
            path += path.empty() ? *name : "." + *name;
        }
        error_ = (path.empty() ? std::string("the object") : path) + ": " + why;
        return false;
    }

    // The field's JSON member, or nullptr.
    static const json::Value* memberOf(const json::Value* obj, const std::string& name) {
        return isAbsent(obj) ? nullptr : json::member(*obj, name);
    }

    bool field(const json::Value* obj, pb::Message& m, const Field* f,
               const registry::SchemaFields::FieldOptions& o) {
        const pb::Reflection* r = m.GetReflection();
        if (o.flatten) {
            // An embedded Go struct: its members sit in this JSON object.
            return message(obj, *r->MutableMessage(&m, f));
        }
        const json::Value* v = memberOf(obj, *o.json);
        path_.push_back(o.json);
        bool ok = true;
        if (isMapField(f)) {
            ok = map(v, m, f);
        } else if (f->is_repeated()) {
            ok = repeated(v, m, f);
        } else if (f->cpp_type() == Field::CPPTYPE_MESSAGE) {
            // A Go struct is always written; a pointer only when set.
            if (!isAbsent(v) || !o.ptr) {
                ok = message(v, *r->MutableMessage(&m, f));
            }
        } else if (f->type() == Field::TYPE_BYTES) {
            // A nil []byte is not written, pointer or not.
            ok = isAbsent(v) || singular(v, m, f);
        } else if (!isAbsent(v) || !o.ptr) {
            // A plain Go scalar is written even when zero or absent.
            ok = singular(v, m, f);
        }
        path_.pop_back();
        return ok;
    }

    bool map(const json::Value* v, pb::Message& m, const Field* f) {
        if (isAbsent(v)) {
            return true;
        }
        if (!v->IsObject()) {
            return wrongType(*v, "a map");
        }
        const Field* keyField = f->message_type()->FindFieldByNumber(1);
        const Field* valueField = f->message_type()->FindFieldByNumber(2);
        // By key, as deterministic serialization and Go write a map; of
        // duplicate keys the last counts, as in a decoded map.
        std::vector<const json::Value::Member*> members;
        members.reserve(v->MemberCount());
        for (const auto& member : v->GetObject()) {
            members.push_back(&member);
        }
        std::stable_sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
            return json::view(a->name) < json::view(b->name);
        });
        for (size_t i = 0; i < members.size(); ++i) {
            const json::Value::Member& member = *members[i];
            if (i + 1 < members.size() &&
                json::view(members[i + 1]->name) == json::view(member.name)) {
                continue;
            }
            pb::Message* entry = m.GetReflection()->AddMessage(&m, f);
            entry->GetReflection()->SetString(entry, keyField,
                                              std::string(json::view(member.name)));
            bool ok = valueField->cpp_type() == Field::CPPTYPE_MESSAGE
                          ? message(&member.value,
                                    *entry->GetReflection()->MutableMessage(entry, valueField))
                          : singular(&member.value, *entry, valueField);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    bool repeated(const json::Value* v, pb::Message& m, const Field* f) {
        if (isAbsent(v)) {
            return true;
        }
        if (!v->IsArray()) {
            return wrongType(*v, "a list");
        }
        const pb::Reflection* r = m.GetReflection();
        for (const json::Value& item : v->GetArray()) {
            bool ok = f->cpp_type() == Field::CPPTYPE_MESSAGE
                          ? message(&item, *r->AddMessage(&m, f))
                          : scalar(&item, m, f, true);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    bool singular(const json::Value* v, pb::Message& m, const Field* f) {
        return scalar(v, m, f, false);
    }

    // Sets (or adds, for a list) one scalar; a null or absent value is the zero.
    bool scalar(const json::Value* v, pb::Message& m, const Field* f, bool add) {
        const pb::Reflection* r = m.GetReflection();
        bool zero = isAbsent(v);
        switch (f->cpp_type()) {
            case Field::CPPTYPE_INT32:
            case Field::CPPTYPE_ENUM: {
                if (!zero && !v->IsInt()) {
                    return wrongType(*v, "an int32");
                }
                int32_t n = zero ? 0 : v->GetInt();
                if (f->cpp_type() == Field::CPPTYPE_ENUM) {
                    add ? r->AddEnumValue(&m, f, n) : r->SetEnumValue(&m, f, n);
                } else {
                    add ? r->AddInt32(&m, f, n) : r->SetInt32(&m, f, n);
                }
                return true;
            }
            case Field::CPPTYPE_INT64: {
                if (!zero && !v->IsInt64()) {
                    return wrongType(*v, "an int64");
                }
                int64_t n = zero ? 0 : v->GetInt64();
                add ? r->AddInt64(&m, f, n) : r->SetInt64(&m, f, n);
                return true;
            }
            case Field::CPPTYPE_UINT32: {
                if (!zero && !v->IsUint()) {
                    return wrongType(*v, "a uint32");
                }
                uint32_t n = zero ? 0 : v->GetUint();
                add ? r->AddUInt32(&m, f, n) : r->SetUInt32(&m, f, n);
                return true;
            }
            case Field::CPPTYPE_UINT64: {
                if (!zero && !v->IsUint64()) {
                    return wrongType(*v, "a uint64");
                }
                uint64_t n = zero ? 0 : v->GetUint64();
                add ? r->AddUInt64(&m, f, n) : r->SetUInt64(&m, f, n);
                return true;
            }
            case Field::CPPTYPE_DOUBLE:
            case Field::CPPTYPE_FLOAT: {
                if (!zero && !v->IsNumber()) {
                    return wrongType(*v, "a number");
                }
                double n = zero ? 0 : v->GetDouble();
                if (f->cpp_type() == Field::CPPTYPE_FLOAT) {
                    auto x = static_cast<float>(n);
                    add ? r->AddFloat(&m, f, x) : r->SetFloat(&m, f, x);
                } else {
                    add ? r->AddDouble(&m, f, n) : r->SetDouble(&m, f, n);
                }
                return true;
            }
            case Field::CPPTYPE_BOOL: {
                if (!zero && !v->IsBool()) {
                    return wrongType(*v, "a bool");
                }
                bool b = !zero && v->GetBool();
                add ? r->AddBool(&m, f, b) : r->SetBool(&m, f, b);
                return true;
            }
            case Field::CPPTYPE_STRING: {
                std::string s;
                if (!zero) {
                    if (!v->IsString()) {
                        return wrongType(*v, "a string");
                    }
                    if (f->type() == Field::TYPE_BYTES) {
                        // Go's encoding/json decodes []byte from standard base64.
                        std::optional<std::string> bytes = util::decodeBase64(json::view(*v));
                        if (!bytes) {
                            return fail("illegal base64 data");
                        }
                        s = std::move(*bytes);
                    } else {
                        s.assign(json::view(*v));
                    }
                }
                add ? r->AddString(&m, f, std::move(s)) : r->SetString(&m, f, std::move(s));
                return true;
            }
            case Field::CPPTYPE_MESSAGE:
                break;
        }
        return fail("not a scalar field");
    }

    // "a JSON string where an int32 belongs". A bool has always been worded
    // "a bool" here; every other type is named as Go names it.
    bool wrongType(const json::Value& v, const char* want) {
        return fail("a JSON " + std::string(json::typeName(v)) + " where " + want + " belongs");
    }

    const Field* fieldNamed(const pb::Message& m, const char* name) {
        return m.GetDescriptor()->FindFieldByName(name);
    }

    // metav1.Time writes seconds and nanos (Go keeps whole seconds, so nanos
    // are 0); MicroTime keeps the microseconds. A zero time is an empty message.
    bool time(const json::Value* v, pb::Message& m, bool micro) {
        if (isAbsent(v) || (v->IsString() && v->GetStringLength() == 0)) {
            return true;
        }
        if (!v->IsString()) {
            return wrongType(*v, "a time string");
        }
        std::optional<util::time::TimePoint> t = util::time::parseRFC3339(json::view(*v));
        if (!t) {
            return fail("not an RFC 3339 time: " + std::string(json::view(*v)));
        }
        auto whole = std::chrono::floor<std::chrono::seconds>(*t);
        int64_t seconds = whole.time_since_epoch().count();
        int64_t frac = std::chrono::nanoseconds(*t - whole).count();
        const Field* s = fieldNamed(m, "seconds");
        const Field* n = fieldNamed(m, "nanos");
        if (!s || !n) {
            return fail("a time message without seconds and nanos");
        }
        m.GetReflection()->SetInt64(&m, s, seconds);
        m.GetReflection()->SetInt32(&m, n, micro ? static_cast<int32_t>(frac / 1000 * 1000) : 0);
        return true;
    }

    // intstr.IntOrString writes all three fields, whichever is in use.
    bool intOrString(const json::Value* v, pb::Message& m) {
        const Field* type = fieldNamed(m, "type");
        const Field* intVal = fieldNamed(m, "intVal");
        const Field* strVal = fieldNamed(m, "strVal");
        if (!type || !intVal || !strVal) {
            return fail("an IntOrString message without type, intVal and strVal");
        }
        const pb::Reflection* r = m.GetReflection();
        bool isString = !isAbsent(v) && v->IsString();
        if (!isAbsent(v) && !isString && !v->IsInt()) {
            return wrongType(*v, "a number or string");
        }
        r->SetInt64(&m, type, isString ? 1 : 0);
        r->SetInt32(&m, intVal, isString || isAbsent(v) ? 0 : v->GetInt());
        r->SetString(&m, strVal, isString ? std::string(json::view(*v)) : std::string());
        return true;
    }

    // resource.Quantity always writes its canonical string; the zero one is "0".
    bool quantity(const json::Value* v, pb::Message& m) {
        const Field* f = fieldNamed(m, "string");
        if (!f) {
            return fail("a Quantity message without its string");
        }
        std::string s = "0";
        if (!isAbsent(v)) {
            char buf[32];
            if (v->IsString()) {
                if (v->GetStringLength() > 0) {
                    s.assign(json::view(*v));
                }
            } else if (v->IsInt64()) {
                std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v->GetInt64()));
                s = buf;
            } else if (v->IsNumber()) {
                std::snprintf(buf, sizeof buf, "%.17g", v->GetDouble());
                s = buf;
            } else {
                return wrongType(*v, "a quantity");
            }
        }
        m.GetReflection()->SetString(&m, f, std::move(s));
        return true;
    }

    // A JSON document kept as bytes (FieldsV1, RawExtension); nil when null.
    bool stringList(const json::Value* v, pb::Message& m) {
        const pb::Descriptor* d = m.GetDescriptor();
        if (isAbsent(v) || d->field_count() == 0) {
            return true;
        }
        if (!v->IsArray()) {
            return wrongType(*v, "a list");
        }
        for (const json::Value& item : v->GetArray()) {
            if (!item.IsString()) {
                return wrongType(item, "a string");
            }
            m.GetReflection()->AddString(&m, d->field(0), std::string(json::view(item)));
        }
        return true;
    }

    // A UNION: an array fills the repeated field, an object the message
    // field (and sets the boolean true), a boolean the bool field. The
    // boolean, a plain Go bool, is written in every case.
    bool oneOf(const json::Value* v, pb::Message& m) {
        const pb::Descriptor* d = m.GetDescriptor();
        const pb::Reflection* r = m.GetReflection();
        auto [list, object, flag] = unionFields(d);
        bool allows = false;
        bool ok = true;
        if (isAbsent(v)) {
            ok = true;
        } else if (v->IsArray() && list) {
            ok = repeated(v, m, list);
        } else if (v->IsObject() && object) {
            allows = true;
            ok = message(v, *r->MutableMessage(&m, object));
        } else if (v->IsBool() && flag) {
            allows = v->GetBool();
        } else {
            return wrongType(*v, flag ? "a boolean or an object" : "a list or an object");
        }
        if (flag) {
            r->SetBool(&m, flag, allows);
        }
        return ok;
    }

    bool rawJson(const json::Value* v, pb::Message& m) {
        const pb::Descriptor* d = m.GetDescriptor();
        if (isAbsent(v) || d->field_count() == 0) {
            return true;
        }
        m.GetReflection()->SetString(&m, d->field(0), json::serialize(*v));
        return true;
    }

    // The JSON names of the fields being written, outermost first.
    std::vector<const std::string*> path_;
    std::string error_;
};

std::string serializeDeterministic(const pb::Message& m) {
    std::string out;
    {
        pb::io::StringOutputStream stream(&out);
        pb::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        m.SerializeToCodedStream(&coded);
    }
    return out;
}

std::string typeMeta(std::string_view apiVersion, std::string_view kind) {
    std::string tm;
    appendBytesField(tm, 1, apiVersion);
    appendBytesField(tm, 2, kind);
    return tm;
}

}  // namespace

std::optional<std::string> encodeProtobufRaw(const json::Value& obj, std::string_view apiVersion,
                                             std::string_view kind, std::string* raw) {
    const pb::Descriptor* d = protobufSchema(apiVersion, kind);
    if (!d) {
        return "no protobuf schema is known for kind \"" + std::string(kind) + "\" in version \"" +
               std::string(apiVersion) + "\"";
    }
    // An arena per object: a message tree is many small allocations freed at once.
    pb::Arena arena;
    pb::Message* m = newMessage(mapFreeSchema(d), &arena);
    ProtoWriter writer;
    bool ok = false;
    // The writer and protobuf's serializer recurse per message: a deep
    // object gets a stack for them.
    util::runWithStackFor(obj, [&] {
        ok = writer.message(&obj, *m);
        if (ok) {
            *raw = serializeDeterministic(*m);
        }
    });
    if (!ok) {
        return writer.error();
    }
    return std::nullopt;
}

std::string protobufEnvelopeHead(std::string_view apiVersion, std::string_view kind,
                                 size_t rawSize) {
    std::string out(kProtobufMagic);
    appendBytesField(out, 1, typeMeta(apiVersion, kind));
    appendVarint(out, 2 << 3 | 2);
    appendVarint(out, rawSize);
    return out;
}

std::string protobufEnvelope(std::string_view apiVersion, std::string_view kind,
                             std::string_view raw) {
    std::string out = protobufEnvelopeHead(apiVersion, kind, raw.size());
    out.reserve(out.size() + raw.size() + kProtobufEnvelopeTail.size());
    out.append(raw);
    out.append(kProtobufEnvelopeTail);
    return out;
}

std::optional<std::string> encodeProtobufObject(std::string_view stored,
                                                std::string_view apiVersion, std::string_view kind,
                                                std::string* out) {
    json::Document doc;
    if (auto why = json::parse(stored, doc)) {
        return "the stored object is not JSON: " + *why;
    }
    std::string raw;
    if (auto why = encodeProtobufRaw(doc, apiVersion, kind, &raw)) {
        return why;
    }
    *out = protobufEnvelope(apiVersion, kind, raw);
    return std::nullopt;
}

std::string encodeProtobufStatus(const meta::Status& s) {
    kapi::meta::v1::Status st;
    // Every plain Go field is written, so each has-bit is set, empty or not.
    kapi::meta::v1::ListMeta* lm = st.mutable_metadata();
    lm->set_selflink("");
    lm->set_resourceversion("");
    lm->set_continue_("");
    st.set_status(s.success ? "Success" : "Failure");
    st.set_message(util::utf8::toValid(s.message));
    st.set_reason(util::utf8::toValid(s.reason));
    if (s.details) {
        kapi::meta::v1::StatusDetails* d = st.mutable_details();
        d->set_name(util::utf8::toValid(s.details->name));
        d->set_group(util::utf8::toValid(s.details->group));
        d->set_kind(util::utf8::toValid(s.details->kind));
        d->set_uid(util::utf8::toValid(s.details->uid));
        for (const meta::StatusCause& c : s.details->causes) {
            kapi::meta::v1::StatusCause* pc = d->add_causes();
            pc->set_reason(util::utf8::toValid(c.reason));
            pc->set_message(util::utf8::toValid(c.message));
            pc->set_field(util::utf8::toValid(c.field));
        }
        d->set_retryafterseconds(s.details->retryAfterSeconds);
    }
    st.set_code(s.success && s.code == 200 ? 0 : s.code);
    return protobufEnvelope("v1", "Status", serializeDeterministic(st));
}

std::string protobufListMeta(std::string_view resourceVersion, std::string_view continueToken,
                             std::optional<uint64_t> remainingItemCount) {
    kapi::meta::v1::ListMeta lm;
    lm.set_selflink("");
    lm.set_resourceversion(std::string(resourceVersion));
    lm.set_continue_(std::string(continueToken));
    if (remainingItemCount) {
        lm.set_remainingitemcount(static_cast<int64_t>(*remainingItemCount));
    }
    std::string out;
    appendBytesField(out, 1, serializeDeterministic(lm));
    return out;
}

void appendProtobufListItemHead(std::string& out, size_t size) {
    appendVarint(out, uint64_t{2} << 3 | 2);
    appendVarint(out, size);
}

void appendProtobufListItem(std::string& out, std::string_view itemRaw) {
    appendProtobufListItemHead(out, itemRaw.size());
    out.append(itemRaw);
}

std::string protobufWatchFrame(std::string_view type, std::string_view objectEnvelope) {
    std::string raw;
    appendBytesField(raw, 1, objectEnvelope);  // RawExtension.raw
    std::string event;
    event.reserve(raw.size() + type.size() + 16);
    appendBytesField(event, 1, type);
    appendBytesField(event, 2, raw);
    std::string frame;
    frame.reserve(event.size() + 4);
    auto n = static_cast<uint32_t>(event.size());
    frame += static_cast<char>(n >> 24);
    frame += static_cast<char>(n >> 16 & 0xff);
    frame += static_cast<char>(n >> 8 & 0xff);
    frame += static_cast<char>(n & 0xff);
    frame += event;
    return frame;
}

}  // namespace kube::endpoints
