#include "admission/default_ingress_class.hpp"

#include <optional>
#include <string>

#include "registry/encoding.hpp"

namespace kube::admission {

namespace json = util::json;

namespace {

constexpr std::string_view kIsDefaultClass = "ingressclass.kubernetes.io/is-default-class";
constexpr std::string_view kClassAnnotation = "kubernetes.io/ingress.class";

struct DefaultClass {
    std::string name;
    std::string created;  // RFC 3339 in UTC: ordered as text
};

// getDefaultClass: the newest of the classes annotated as default, the
// first by name among equally new ones.
std::optional<DefaultClass> findDefault(const storage::ListResult& res) {
    std::optional<DefaultClass> found;
    for (const storage::ObjectView& item : res.items) {
        json::Document doc;
        doc.Parse(item.value.data(), item.value.size());
        if (doc.HasParseError() || !doc.IsObject()) {
            continue;
        }
        const json::Value* flag = json::at(doc, {"metadata", "annotations", kIsDefaultClass});
        if (!flag || !flag->IsString() || json::view(*flag) != "true") {
            continue;
        }
        DefaultClass c{std::string(json::stringMember(doc["metadata"], "name")),
                       std::string(json::stringMember(doc["metadata"], "creationTimestamp"))};
        if (!found || c.created > found->created ||
            (c.created == found->created && c.name < found->name)) {
            found = std::move(c);
        }
    }
    return found;
}

}  // namespace

DefaultIngressClass::DefaultIngressClass(storage::Interface& storage,
                                         const registry::KindInfo& ingressClasses,
                                         const registry::KindInfo& ingresses)
    : storage_(storage), ingressClasses_(ingressClasses), ingresses_(ingresses) {}

bool DefaultIngressClass::handles(const Attributes& a) const {
    return a.kind && a.kind->group == ingresses_.group && a.kind->resource == ingresses_.resource &&
           a.subresource.empty() && a.operation == Operation::Create;
}

void DefaultIngressClass::admit(Attributes& a, Callback done) {
    if (!a.object || !a.object->IsObject()) {
        done(nullptr);
        return;
    }
    const json::Value* className = json::at(*a.object, {"spec", "ingressClassName"});
    const json::Value* annotation =
        json::at(*a.object, {"metadata", "annotations", kClassAnnotation});
    if ((className && !className->IsNull()) || annotation) {
        done(nullptr);
        return;
    }
    storage::ListOptions opts;
    opts.prefix = registry::collectionPrefix(ingressClasses_, "");
    Attributes* attrs = &a;
    storage_.list(opts, [attrs, done = std::move(done)](const storage::Error& err,
                                                        const storage::ListResult& res) {
        if (!err.ok()) {
            meta::Status s = forbidden(*attrs, err.message);
            done(&s);
            return;
        }
        std::optional<DefaultClass> found = findDefault(res);
        if (found) {
            json::Allocator& alloc = *attrs->allocator;
            json::Value* spec = json::member(*attrs->object, "spec");
            if (!spec || !spec->IsObject()) {
                json::setMember(*attrs->object, "spec", json::Value(rapidjson::kObjectType), alloc);
                spec = json::member(*attrs->object, "spec");
            }
            json::setMember(*spec, "ingressClassName", json::stringValue(found->name, alloc),
                            alloc);
        }
        done(nullptr);
    });
}

}  // namespace kube::admission
