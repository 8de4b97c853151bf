// The OpenAPI schema validator kube runs on custom resources (kube-openapi
// validate.SchemaValidator, as NewSchemaValidator builds it from a CRD's
// schema), with apiservervalidation.ValidateCustomResource turning its
// errors into field errors.
#include <cmath>
#include <unordered_set>

#include <re2/re2.h>

#include "apis/apiextensions/structural_walks.hpp"
#include "registry/validation.hpp"

namespace kube::apis::apiextensions::structural {

namespace {

using core::field::BadValue;
using registry::validation::goQuote;

// The paths kube-openapi writes in its messages: "spec.replicas",
// "spec.ports[0]"; a required or additional property is always joined with
// a '.', so at the root it reads ".name".
class OpenAPIPath {
  public:
    OpenAPIPath() = default;
    OpenAPIPath property(std::string_view n) const { return {this, Step::Property, n, 0}; }
    OpenAPIPath extra(std::string_view n) const { return {this, Step::Extra, n, 0}; }
    OpenAPIPath index(size_t i) const { return {this, Step::Index, {}, i}; }

    std::string str() const {
        if (!parent_) {
            return {};
        }
        std::string p = parent_->str();
        switch (step_) {
            case Step::Property:
                return p.empty() ? std::string(name_) : p + "." + std::string(name_);
            case Step::Extra:
                return p + "." + std::string(name_);
            case Step::Index:
                return p + "[" + std::to_string(index_) + "]";
        }
        return p;
    }

  private:
    enum class Step { Property, Extra, Index };
    OpenAPIPath(const OpenAPIPath* parent, Step step, std::string_view name, size_t i)
        : parent_(parent), step_(step), name_(name), index_(i) {}

    const OpenAPIPath* parent_ = nullptr;
    Step step_ = Step::Property;
    std::string_view name_;
    size_t index_ = 0;
};

// What ValidateCustomResource makes of each kind of kube-openapi error.
enum class Kind { Invalid, TypeInvalid, Required, NotSupported, TooLong, TooMany, Composite };

struct Error {
    Kind kind;
    std::string name;     // errors.Validation.Name
    std::string message;  // err.Error()
    std::optional<BadValue> value;
    std::vector<std::string> supported;  // NotSupported
    int64_t valid = -1;                  // TooLong, TooMany
    int64_t actual = -1;                 // TooMany
};

// validate.Result: errors deduplicated by their text, and MatchCount, which
// decides which failing anyOf/oneOf branch is reported.
struct Result {
    std::vector<Error> errors;
    std::unordered_set<std::string> seen;
    int matchCount = 0;

    void add(Error e) {
        if (seen.insert(e.message).second) {
            errors.push_back(std::move(e));
        }
    }
    void merge(Result&& other) {
        for (Error& e : other.errors) {
            add(std::move(e));
        }
        matchCount += other.matchCount;
    }
    bool valid() const { return errors.empty(); }
};

bool isInt(const json::Value& v) {
    return v.IsInt64();
}

// swag.IsFloat64AJSONInteger.
bool isFloat64AJSONInteger(double f) {
    constexpr double kMax = 9007199254740991.0;  // 1<<53 - 1
    if (std::isnan(f) || std::isinf(f) || f < -kMax || f > kMax) {
        return false;
    }
    double g = std::trunc(f);
    if (f == g) {
        return true;
    }
    double diff = std::fabs(f - g);
    if (f == 0 || g == 0) {
        return false;
    }
    return diff / (std::fabs(f) + std::fabs(g)) < 1e-9;
}

// The JSON type kube-openapi sees for a value, and the format it implies.
std::pair<std::string_view, std::string_view> schemaInfo(const json::Value& v) {
    if (v.IsBool()) {
        return {"boolean", ""};
    }
    if (v.IsString()) {
        return {"string", ""};
    }
    if (v.IsNumber()) {
        return isInt(v) ? std::pair<std::string_view, std::string_view>{"integer", "int64"}
                        : std::pair<std::string_view, std::string_view>{"number", "float64"};
    }
    if (v.IsArray()) {
        return {"array", ""};
    }
    return {"object", ""};
}

std::string in(const std::string& path, const char* rest) {
    return path + " in body " + rest;
}

// errors.InvalidType with a string value: `<path> in body must be of type T: "v"`.
Error invalidType(const std::string& path, std::string_view type, std::string_view value) {
    return {Kind::TypeInvalid, path,
            path + " in body must be of type " + std::string(type) + ": " + goQuote(value),
            BadValue(value)};
}

Error invalid(const std::string& path, std::string message, BadValue value) {
    return {Kind::Invalid, path, std::move(message), std::move(value)};
}

Error composite(std::string message) {
    return {Kind::Composite, "", std::move(message), std::nullopt};
}

BadValue number(const json::Value& v) {
    return isInt(v) ? BadValue(v.GetInt64()) : BadValue(v.GetDouble());
}

std::string goFloat(double d) {
    return BadValue(d).text();
}

// Go's conversion of an unstructured value to the type of an enum value,
// then reflect.DeepEqual (basicCommonValidator).
bool enumMatches(const json::Value& data, const json::Value& e) {
    if (data.IsNull() || e.IsNull()) {
        return false;
    }
    if (e.IsString()) {
        if (data.IsString()) {
            return json::view(data) == json::view(e);
        }
        if (data.IsNumber() && isInt(data)) {
            // string(rune(n))
            int64_t r = data.GetInt64();
            std::string s;
            if (r < 0 || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) {
                r = 0xFFFD;
            }
            if (r < 0x80) {
                s += static_cast<char>(r);
            } else if (r < 0x800) {
                s += static_cast<char>(0xC0 | (r >> 6));
                s += static_cast<char>(0x80 | (r & 0x3F));
            } else if (r < 0x10000) {
                s += static_cast<char>(0xE0 | (r >> 12));
                s += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
                s += static_cast<char>(0x80 | (r & 0x3F));
            } else {
                s += static_cast<char>(0xF0 | (r >> 18));
                s += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
                s += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
                s += static_cast<char>(0x80 | (r & 0x3F));
            }
            return s == json::view(e);
        }
        return false;
    }
    if (e.IsBool()) {
        return data.IsBool() && data.GetBool() == e.GetBool();
    }
    if (e.IsNumber()) {
        if (!data.IsNumber()) {
            return false;
        }
        if (isInt(e)) {
            if (isInt(data)) {
                return data.GetInt64() == e.GetInt64();
            }
            double f = data.GetDouble();
            return std::fabs(f) < 9.2e18 && static_cast<int64_t>(f) == e.GetInt64();
        }
        return data.GetDouble() == e.GetDouble();
    }
    return goDeepEqual(data, e);
}

class Validator {
  public:
    Result validate(const StructuralNode& s, const json::Value& data, const OpenAPIPath& path) {
        Result r;
        if (data.IsNull()) {
            r.merge(typeCheck(s, data, path));
            r.merge(enumCheck(s, data, path));
            return r;
        }
        if (!s.type.empty() || !s.format.empty()) {
            r.merge(typeCheck(s, data, path));
            ++r.matchCount;
        }
        r.merge(junctors(s, data, path));
        ++r.matchCount;
        if (data.IsString()) {
            r.merge(stringCheck(s, data, path));
            ++r.matchCount;
            if (!s.format.empty()) {
                r.merge(formatCheck(s, data, path));
                ++r.matchCount;
            }
        }
        if (data.IsNumber()) {
            r.merge(numberCheck(s, data, path));
            ++r.matchCount;
        }
        if (data.IsArray()) {
            r.merge(sliceCheck(s, data, path));
            ++r.matchCount;
        }
        r.merge(enumCheck(s, data, path));
        ++r.matchCount;
        if (data.IsObject()) {
            r.merge(objectCheck(s, data, path));
            ++r.matchCount;
        }
        ++r.matchCount;
        return r;
    }

  private:
    static Result single(Error e) {
        Result r;
        r.add(std::move(e));
        return r;
    }

    // typeValidator.
    Result typeCheck(const StructuralNode& s, const json::Value& data, const OpenAPIPath& path) {
        Result r;
        r.matchCount = 1;
        if (data.IsNull()) {
            if (!s.type.empty() && !s.nullable) {
                return single(invalidType(path.str(), s.type, "null"));
            }
            return r;
        }
        auto [schType, format] = schemaInfo(data);
        bool isFloatInt =
            schType == "number" && isFloat64AJSONInteger(data.GetDouble()) && s.hasType("integer");
        bool isIntFloat = schType == "integer" && s.hasType("number");
        bool stringOrSlice = data.IsString() || data.IsArray();
        if (!stringOrSlice && !s.format.empty() &&
            !(s.hasType(schType) || format == s.format || isFloatInt || isIntFloat)) {
            return single(invalidType(path.str(), s.format, format));
        }
        if (!(s.hasType("number") || s.hasType("integer")) && !s.format.empty() && stringOrSlice) {
            return r;
        }
        if (!(s.hasType(schType) || isFloatInt || isIntFloat)) {
            return single(invalidType(path.str(), s.type, schType));
        }
        return r;
    }

    // schemaPropsValidator: anyOf, oneOf, allOf, not.
    Result junctors(const StructuralNode& s, const json::Value& data, const OpenAPIPath& path) {
        Result main;
        if (!s.anyOf.empty()) {
            std::optional<Result> best;
            std::optional<Result> firstSuccess;
            bool succeeded = false;
            for (const StructuralNode* term : s.anyOf) {
                Result r = validate(*term, data, path);
                if (r.valid()) {
                    best.reset();
                    succeeded = true;
                    firstSuccess = std::move(r);
                    break;
                }
                if (!best || r.matchCount > best->matchCount) {
                    best = std::move(r);
                }
            }
            if (!succeeded) {
                main.add(
                    composite(goQuote(path.str()) + " must validate at least one schema (anyOf)"));
            }
            if (best) {
                main.merge(std::move(*best));
            } else if (firstSuccess) {
                main.merge(std::move(*firstSuccess));
            }
        }
        if (!s.oneOf.empty()) {
            std::optional<Result> best;
            std::optional<Result> firstSuccess;
            int validated = 0;
            for (const StructuralNode* term : s.oneOf) {
                Result r = validate(*term, data, path);
                if (r.valid()) {
                    ++validated;
                    best.reset();
                    if (!firstSuccess) {
                        firstSuccess = std::move(r);
                    }
                    continue;
                }
                if (validated == 0 && (!best || r.matchCount > best->matchCount)) {
                    best = std::move(r);
                }
            }
            if (validated != 1) {
                std::string more =
                    validated == 0 ? std::string("Found none valid")
                                   : "Found " + std::to_string(validated) + " valid alternatives";
                main.add(composite(goQuote(path.str()) +
                                   " must validate one and only one schema (oneOf). " + more));
                if (best) {
                    main.merge(std::move(*best));
                }
            } else if (firstSuccess) {
                main.merge(std::move(*firstSuccess));
            }
        }
        if (!s.allOf.empty()) {
            size_t validated = 0;
            for (const StructuralNode* term : s.allOf) {
                Result r = validate(*term, data, path);
                validated += r.valid() ? 1 : 0;
                main.merge(std::move(r));
            }
            if (validated != s.allOf.size()) {
                main.add(composite(goQuote(path.str()) + " must validate all the schemas (allOf)" +
                                   (validated == 0 ? ". None validated" : "")));
            }
        }
        if (s.notSchema && validate(*s.notSchema, data, path).valid()) {
            main.add(composite(goQuote(path.str()) + " must not validate the schema (not)"));
        }
        ++main.matchCount;
        return main;
    }

    // stringValidator: only the first failing rule is reported.
    Result stringCheck(const StructuralNode& s, const json::Value& data, const OpenAPIPath& path) {
        std::string_view v = json::view(data);
        int64_t runes = 0;
        for (unsigned char c : v) {
            runes += (c & 0xC0) != 0x80 ? 1 : 0;
        }
        if (s.maxLength && runes > *s.maxLength) {
            Error e{Kind::TooLong, path.str(), "", BadValue(v)};
            e.message =
                in(e.name, "should be at most ") + std::to_string(*s.maxLength) + " chars long";
            e.valid = *s.maxLength;
            return single(std::move(e));
        }
        if (s.minLength && runes < *s.minLength) {
            std::string p = path.str();
            return single(invalid(
                p, in(p, "should be at least ") + std::to_string(*s.minLength) + " chars long",
                BadValue(v)));
        }
        if (!s.pattern.empty()) {
            std::string p = path.str();
            if (!s.patternRegex) {
                return single(invalid(p,
                                      in(p, "should match '") + s.pattern +
                                          ", but pattern is invalid: " + s.patternError + "'",
                                      BadValue(v)));
            }
            if (!re2::RE2::PartialMatch(re2::StringPiece(v.data(), v.size()), *s.patternRegex)) {
                return single(invalid(p, in(p, "should match '") + s.pattern + "'", BadValue(v)));
            }
        }
        return {};
    }

    Result formatCheck(const StructuralNode& s, const json::Value& data, const OpenAPIPath& path) {
        if (isOfFormat(s.format, json::view(data))) {
            return {};
        }
        return single(invalidType(path.str(), s.format, json::view(data)));
    }

    // numberValidator: multipleOf, minimum, maximum; an integer is compared
    // with the bounds converted to integers, as kube-openapi does.
    Result numberCheck(const StructuralNode& s, const json::Value& data, const OpenAPIPath& path) {
        Result r;
        r.matchCount = 1;
        bool integer = isInt(data);
        double f = data.GetDouble();
        if (s.multipleOf) {
            double factor = *s.multipleOf;
            int64_t intFactor = static_cast<int64_t>(factor);
            if (factor < 0) {
                std::string p = path.str();
                r.add(invalid(p,
                              "factor MultipleOf declared for " + p + " must be positive: " +
                                  (integer ? std::to_string(intFactor) : goFloat(factor)),
                              BadValue(factor)));
            } else if (integer && intFactor != 0) {
                // kube divides by int64(factor); a factor below 1 would make
                // kube panic, it is checked as a float here.
                int64_t v = data.GetInt64();
                if ((v / intFactor) * intFactor != v) {
                    std::string p = path.str();
                    r.add(invalid(p, in(p, "should be a multiple of ") + std::to_string(intFactor),
                                  number(data)));
                }
            } else if (factor > 0) {
                double mult = factor < 1 ? 1 / factor * f : f / factor;
                if (!isFloat64AJSONInteger(mult)) {
                    std::string p = path.str();
                    r.add(invalid(p, in(p, "should be a multiple of ") + goFloat(factor),
                                  number(data)));
                }
            }
        }
        if (s.minimum) {
            bool fails;
            std::string bound;
            if (integer) {
                int64_t m = static_cast<int64_t>(*s.minimum);
                int64_t v = data.GetInt64();
                fails = s.exclusiveMinimum ? v <= m : v < m;
                bound = std::to_string(m);
            } else {
                fails = s.exclusiveMinimum ? f <= *s.minimum : f < *s.minimum;
                bound = goFloat(*s.minimum);
            }
            if (fails) {
                std::string p = path.str();
                r.add(invalid(p,
                              in(p, s.exclusiveMinimum ? "should be greater than "
                                                       : "should be greater than or equal to ") +
                                  bound,
                              number(data)));
            }
        }
        if (s.maximum) {
            bool fails;
            std::string bound;
            if (integer) {
                int64_t m = static_cast<int64_t>(*s.maximum);
                int64_t v = data.GetInt64();
                fails = s.exclusiveMaximum ? v >= m : v > m;
                bound = std::to_string(m);
            } else {
                fails = s.exclusiveMaximum ? f >= *s.maximum : f > *s.maximum;
                bound = goFloat(*s.maximum);
            }
            if (fails) {
                std::string p = path.str();
                r.add(invalid(p,
                              in(p, s.exclusiveMaximum ? "should be less than "
                                                       : "should be less than or equal to ") +
                                  bound,
                              number(data)));
            }
        }
        return r;
    }

    Result sliceCheck(const StructuralNode& s, const json::Value& data, const OpenAPIPath& path) {
        Result r;
        int64_t size = data.Size();
        if (s.items) {
            for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
                r.merge(validate(*s.items, data[i], path.index(i)));
            }
        }
        if (s.minItems && size < *s.minItems) {
            std::string p = path.str();
            r.add(invalid(p,
                          in(p, "should have at least ") + std::to_string(*s.minItems) + " items",
                          BadValue(size)));
        }
        if (s.maxItems && size > *s.maxItems) {
            Error e{Kind::TooMany, path.str(), "", std::nullopt};
            e.message = in(e.name, "should have at most ") + std::to_string(*s.maxItems) + " items";
            e.valid = *s.maxItems;
            e.actual = size;
            r.add(std::move(e));
        }
        if (s.uniqueItems) {
            for (rapidjson::SizeType i = 1; i < data.Size(); ++i) {
                bool dup = false;
                for (rapidjson::SizeType j = 0; j < i && !dup; ++j) {
                    dup = goDeepEqual(data[i], data[j]);
                }
                if (dup) {
                    std::string p = path.str();
                    r.add(invalid(p, in(p, "shouldn't contain duplicates"), BadValue("")));
                    break;
                }
            }
        }
        ++r.matchCount;
        return r;
    }

    Result enumCheck(const StructuralNode& s, const json::Value& data, const OpenAPIPath& path) {
        if (!s.hasEnum) {
            return {};
        }
        for (const json::Value* e : s.enumValues) {
            if (enumMatches(data, *e)) {
                return {};
            }
        }
        Error err{Kind::NotSupported, path.str(), "", goValue(data)};
        err.message = in(err.name, "should be one of [");
        for (const json::Value* e : s.enumValues) {
            std::string text = e->IsString() ? std::string(json::view(*e)) : goMarshal(*e);
            err.supported.push_back(text);
            err.message += (err.message.back() == '[' ? "" : " ") + text;
        }
        err.message += "]";
        if (data.IsNull()) {
            err.value = BadValue("null");
        }
        return single(std::move(err));
    }

    Result objectCheck(const StructuralNode& s, const json::Value& data, const OpenAPIPath& path) {
        int64_t keys = data.MemberCount();
        if (s.minProperties && keys < *s.minProperties) {
            std::string p = path.str();
            return single(invalid(
                p,
                in(p, "should have at least ") + std::to_string(*s.minProperties) + " properties",
                BadValue(keys)));
        }
        if (s.maxProperties && keys > *s.maxProperties) {
            Error e{Kind::TooMany, path.str(), "", std::nullopt};
            e.message = in(e.name, "should have at most ") + std::to_string(*s.maxProperties) +
                        " properties";
            e.valid = *s.maxProperties;
            e.actual = keys;
            return single(std::move(e));
        }
        Result r;
        if (s.hasAdditionalProperties && !s.additionalPropertiesAllowed &&
            !s.additionalProperties) {
            for (const auto& m : data.GetObject()) {
                std::string_view k = json::view(m.name);
                if (!s.property(k)) {
                    std::string p = path.str();
                    r.add(invalid(p, p + "." + std::string(k) + " in body is a forbidden property",
                                  BadValue(k)));
                }
            }
        } else if (s.additionalProperties) {
            for (const auto& m : data.GetObject()) {
                std::string_view k = json::view(m.name);
                if (!s.property(k)) {
                    r.merge(validate(*s.additionalProperties, m.value, path.extra(k)));
                }
            }
        }
        if (!s.properties.empty()) {
            for (const auto& m : data.GetObject()) {
                std::string_view k = json::view(m.name);
                if (const StructuralNode* p = s.property(k)) {
                    r.merge(validate(*p, m.value, path.property(k)));
                }
            }
        }
        for (const std::string& k : s.required) {
            if (!json::member(data, k)) {
                std::string p = path.str() + "." + k;
                r.add({Kind::Required, p, p + " in body is required", std::nullopt});
            }
        }
        return r;
    }
};

}  // namespace

void validateOpenAPI(const StructuralNode& s, const json::Value& x, const FieldPath& fldPath,
                     core::field::Causes& out) {
    Validator v;
    Result r = v.validate(s, x, OpenAPIPath());
    namespace field = core::field;
    for (Error& e : r.errors) {
        std::string path;
        if (e.kind == Kind::Composite || e.name.empty() || e.name == ".") {
            path = fldPath.str();
        } else {
            std::string_view name = e.name;
            if (name.front() == '.') {
                name.remove_prefix(1);
            }
            path = fldPath.child(name).str();
        }
        BadValue value = e.value ? *e.value : BadValue("");
        switch (e.kind) {
            case Kind::Required:
                out.push_back(field::required(path));
                break;
            case Kind::NotSupported:
                out.push_back(field::notSupported(path, value, e.supported));
                break;
            case Kind::TooLong:
                out.push_back({"FieldValueTooLong",
                               e.valid >= 0
                                   ? "Too long: may not be longer than " + std::to_string(e.valid)
                                   : std::string("Too long: value too long"),
                               path});
                break;
            case Kind::TooMany:
                out.push_back(registry::validation::field::tooMany(path, e.actual, e.valid));
                break;
            case Kind::TypeInvalid:
                out.push_back(registry::validation::field::typeInvalid(path, value, e.message));
                break;
            case Kind::Invalid:
            case Kind::Composite:
                out.push_back(field::invalid(path, value, e.message));
                break;
        }
    }
}

}  // namespace kube::apis::apiextensions::structural
