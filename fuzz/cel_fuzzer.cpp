// A CEL validation rule: the input's first line is the object (self), the
// rest the rule, compiled against a dyn self and against a typed schema and
// evaluated with a small cost limit. A rule that compiles yields a bool or
// an error; a refused one a message in cel-go's format.
#include <cstdlib>
#include <string>

#include "cel/program.hpp"
#include "fuzz_input.hpp"
#include "util/json.hpp"

namespace json = kube::util::json;
namespace cel = kube::cel;

namespace {

const char* const kSchema = R"({"type": "object", "properties": {
    "s": {"type": "string", "maxLength": 64}, "i": {"type": "integer"},
    "d": {"type": "number"}, "b": {"type": "boolean"},
    "t": {"type": "string", "format": "date-time"},
    "l": {"type": "array", "maxItems": 16, "items": {"type": "string", "maxLength": 16}},
    "m": {"type": "object", "additionalProperties": {"type": "integer"}},
    "o": {"type": "object", "properties": {"a": {"type": "string"}}},
    "x": {"x-kubernetes-int-or-string": true}}})";

const cel::TypePtr& schemaType() {
    static const cel::TypePtr type = [] {
        json::Document schema;
        json::parse(kSchema, schema);
        return cel::Type::fromSchema(schema, true);
    }();
    return type;
}

const cel::TypePtr& dynType() {
    static const cel::TypePtr type = [] {
        json::Document schema;
        json::parse(R"({"x-kubernetes-preserve-unknown-fields": true})", schema);
        return cel::Type::fromSchema(schema, false);
    }();
    return type;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto [object, rule] = kube::fuzz::split(kube::fuzz::text(data, size));
    json::Document self;
    if (json::parse(object, self)) {
        self.SetObject();
    }
    for (const cel::TypePtr* type : {&dynType(), &schemaType()}) {
        std::string error;
        auto program = cel::compile(rule, *type, &error);
        if (!program) {
            if (error.empty()) {
                std::abort();  // a refusal says why
            }
            continue;
        }
        cel::EvalOutcome out = cel::evaluate(*program, {&self, &self}, 20000);
        if (!out.value.isError() && out.value.kind() != cel::Kind::Bool) {
            std::abort();  // a compiled rule is a bool
        }
        if (out.cost > 20000 &&
            (!out.value.isError() || out.value.str() != cel::kCostLimitExceeded)) {
            std::abort();  // past the limit, the evaluation stops
        }
    }
    return 0;
}
