// util::json::parse on any bytes; what parses serializes, and the
// serialization parses back to the same document: the same structure, keys
// and strings byte for byte (repeated keys included, in order), the same
// integers. Doubles may differ in the last bits: RapidJSON's default number
// reader is not correctly rounded (fuzz/crashes/json/long-number-drift).
#include <cmath>
#include <cstdlib>
#include <string>

#include "fuzz_input.hpp"
#include "util/json.hpp"

namespace json = kube::util::json;

namespace {

bool same(const json::Value& a, const json::Value& b) {
    if (a.GetType() != b.GetType()) {
        return false;
    }
    if (a.IsString()) {
        return json::view(a) == json::view(b);
    }
    if (a.IsNumber()) {
        if (a.IsInt64() && b.IsInt64()) {
            return a.GetInt64() == b.GetInt64();
        }
        if (a.IsUint64() && b.IsUint64()) {
            return a.GetUint64() == b.GetUint64();
        }
        double x = a.GetDouble(), y = b.GetDouble();
        return std::fabs(x - y) <= 1e-14 * std::fmax(std::fabs(x), std::fabs(y));
    }
    if (a.IsArray()) {
        if (a.Size() != b.Size()) {
            return false;
        }
        for (rapidjson::SizeType i = 0; i < a.Size(); i++) {
            if (!same(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }
    if (a.IsObject()) {
        if (a.MemberCount() != b.MemberCount()) {
            return false;
        }
        for (auto i = a.MemberBegin(), j = b.MemberBegin(); i != a.MemberEnd(); ++i, ++j) {
            if (json::view(i->name) != json::view(j->name) || !same(i->value, j->value)) {
                return false;
            }
        }
        return true;
    }
    return a == b;  // null, true, false
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    json::Document doc;
    if (json::parse(kube::fuzz::text(data, size), doc)) {
        return 0;
    }
    std::string once = json::serialize(doc);
    json::Document again;
    if (json::parse(once, again)) {
        std::abort();  // our own output is not JSON
    }
    if (!same(doc, again)) {
        std::abort();  // parse(serialize(parse(x))) != parse(x)
    }
    (void)json::serializePretty(doc);
    return 0;
}
