#include "apis/apiextensions/custom_resource_schema_hooks.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apis/apiextensions/cel_rules.hpp"
#include "apis/apiextensions/custom_resource_validation.hpp"
#include "apis/apiextensions/defaulting.hpp"
#include "apis/apiextensions/pruning.hpp"
#include "apis/apiextensions/structural_schema.hpp"

namespace kube::apis::apiextensions {

namespace {

namespace json = util::json;
using core::field::Causes;

// A version's compiled schema, with the CRD document its nodes point into.
struct CompiledSchema {
    std::shared_ptr<const registry::CustomResourceDefinitionRef> ref;
    std::shared_ptr<const StructuralSchema> structural;
    // Null when the schema has no rule.
    std::shared_ptr<const CelRules> rules;
    std::shared_ptr<const registry::StoredDecoding> stored;
};

// The kind's decodeCustom; it carries the compiled schema, so that what
// else needs it (server-side apply, the store's reads) finds the one copy.
struct CustomResourceDecoder {
    std::shared_ptr<const CompiledSchema> compiled;

    std::optional<std::string> operator()(json::Value& obj,
                                          std::vector<std::string>& unknown) const {
        if (std::optional<std::string> err = coerceCustomResource(*compiled->structural, obj)) {
            return err;
        }
        std::vector<std::string> pruned = pruneCustomResource(*compiled->structural, obj);
        unknown.insert(unknown.end(), std::make_move_iterator(pruned.begin()),
                       std::make_move_iterator(pruned.end()));
        return std::nullopt;
    }
};

const CompiledSchema* compiledSchemaOf(const registry::KindInfo& kind) {
    const CustomResourceDecoder* d = kind.decodeCustom.target<CustomResourceDecoder>();
    return d ? d->compiled.get() : nullptr;
}

// Mirrors the storage codec of crdHandler: schemaCoercingDecoder prunes with
// the storage version's schema, unstructuredDefaulter defaults with it, and
// schemaCoercingConverter prunes again with the schema of the version the
// object is converted to.
std::shared_ptr<const registry::StoredDecoding> storedDecoding(
    const StoredSchemas& stored, std::shared_ptr<const StructuralSchema> served) {
    if (!stored.storage) {
        return nullptr;
    }
    if (served == stored.storage) {
        served = nullptr;
    }
    return std::make_shared<registry::StoredDecoding>(
        [storage = stored.storage, served](json::Value& obj, json::Allocator& a) {
            pruneCustomResource(*storage, obj);
            defaultCustomResource(*storage, obj, a);
            if (served) {
                pruneCustomResource(*served, obj);
            }
        },
        stored.settledAfter);
}

// Errors after which kube runs no CEL rule (the strategies' hasBlockingErr):
// the object does not have the shape the rules were written for.
bool blocksRules(const Causes& causes) {
    for (const meta::StatusCause& c : causes) {
        if (c.reason == "FieldValueNotSupported" || c.reason == "FieldValueRequired" ||
            c.reason == "FieldValueTooLong" || c.reason == "FieldValueTooMany" ||
            c.reason == "FieldValueTypeInvalid") {
            return true;
        }
    }
    return false;
}

Causes validateObject(const CompiledSchema& s, const json::Value& obj, const json::Value* old) {
    Causes causes = validateCustomResource(*s.structural, obj);
    if (!s.rules) {
        return causes;
    }
    if (blocksRules(causes)) {
        causes.push_back(core::field::invalid(
            "<nil>", registry::validation::BadValue("null"),
            "some validation rules were not checked because the object was invalid; correct the "
            "existing errors to complete validation"));
        return causes;
    }
    Causes failed = validateWithCelRules(*s.rules, obj, old);
    causes.insert(causes.end(), std::make_move_iterator(failed.begin()),
                  std::make_move_iterator(failed.end()));
    return causes;
}

}  // namespace

void installSchemaHooks(registry::KindInfo& kind, std::shared_ptr<const StructuralSchema> schema,
                        StoredSchemas stored) {
    if (!kind.custom || !kind.custom->openAPIV3Schema || !schema) {
        return;
    }
    auto s = std::make_shared<CompiledSchema>();
    s->ref = kind.custom;
    s->structural = schema;
    // The CRD's own validation reported its rules' errors; rules that did
    // not compile are left out.
    std::shared_ptr<const CelRules> rules =
        compileCelRules(*kind.custom->openAPIV3Schema, "", nullptr);
    if (rules && hasCelRules(*rules)) {
        s->rules = std::move(rules);
    }
    s->stored = storedDecoding(stored, std::move(schema));
    std::shared_ptr<const CompiledSchema> compiled = std::move(s);
    kind.decodeCustom = CustomResourceDecoder{compiled};
    kind.defaults = [compiled](json::Value& obj, json::Allocator& a) {
        defaultCustomResource(*compiled->structural, obj, a);
    };
    kind.validate = [compiled](const json::Value& obj) {
        return validateObject(*compiled, obj, nullptr);
    };
    kind.validateUpdate = [compiled](const json::Value& obj, const json::Value& old) {
        return validateObject(*compiled, obj, &old);
    };
    kind.validateStatusUpdate = kind.validateUpdate;
}

std::shared_ptr<const StructuralSchema> structuralSchemaOf(const registry::KindInfo& kind) {
    const CompiledSchema* c = compiledSchemaOf(kind);
    return c ? c->structural : nullptr;
}

std::shared_ptr<const registry::StoredDecoding> storedDecodingOf(const registry::KindInfo& kind) {
    const CompiledSchema* c = compiledSchemaOf(kind);
    return c ? c->stored : nullptr;
}

}  // namespace kube::apis::apiextensions
