#pragma once

// What the CEL unit tests share: compile a rule against a schema and run it
// on an object, the outcome as one string to compare.
#include <memory>
#include <string>

#include "cel/program.hpp"
#include "util/json.hpp"

namespace kube::cel::testing {

inline TypePtr schemaType(const char* schemaJson) {
    util::json::Document schema;
    if (util::json::parse(schemaJson, schema)) {
        return nullptr;
    }
    return Type::fromSchema(schema, false);
}

// "true" / "false", "error: <evaluation error>", "compile: <kube's text>",
// "cost: <message>" when the estimate is past the static limit.
inline std::string outcome(const char* rule, const char* schemaJson, const char* selfJson,
                           const char* oldSelfJson = nullptr) {
    TypePtr type = schemaType(schemaJson);
    if (!type) {
        return "bad schema in test";
    }
    std::string error;
    std::shared_ptr<const Program> program = compile(rule, type, &error);
    if (!program) {
        return "compile: " + error;
    }
    if (program->estimatedMaxCost() > kStaticEstimatedCostLimit) {
        return "cost: " + costErrorMessage("estimated rule cost", program->estimatedMaxCost(),
                                           kStaticEstimatedCostLimit);
    }
    util::json::Document self;
    util::json::Document oldSelf;
    if (util::json::parse(selfJson, self) ||
        (oldSelfJson != nullptr && util::json::parse(oldSelfJson, oldSelf))) {
        return "bad object in test";
    }
    Activation activation{&self, oldSelfJson != nullptr ? &oldSelf : nullptr};
    EvalOutcome out = evaluate(*program, activation);
    if (out.value.isError()) {
        return "error: " + out.value.str();
    }
    if (out.value.kind() != Kind::Bool) {
        return "not a bool";
    }
    return out.value.asBool() ? "true" : "false";
}

// A schema that makes self dyn: anything goes through the checker.
inline constexpr const char* kAnySchema = R"({"x-kubernetes-preserve-unknown-fields": true})";

}  // namespace kube::cel::testing
