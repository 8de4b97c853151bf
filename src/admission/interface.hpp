#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "apis/meta/status.hpp"
#include "authn/user.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

namespace kube::admission {

// Mirrors admission.Operation.
enum class Operation { Create, Update, Delete, Connect };

// "CREATE", "UPDATE", "DELETE", "CONNECT".
std::string_view operationName(Operation op);

// What a plugin judges; mirrors admission.Attributes. The pointers are the
// caller's and stay valid until the plugin's callback has run.
struct Attributes {
    Operation operation = Operation::Create;
    // The kind written (its group, kind and resource).
    const registry::KindInfo* kind = nullptr;
    std::string subresource;  // "" or "status", "scale"
    std::string ns;
    std::string name;
    // The object to be written (null on delete). A mutating plugin may
    // change it, allocating from `allocator`.
    util::json::Value* object = nullptr;
    util::json::Allocator* allocator = nullptr;
    // The stored object, on update and delete (may be null on delete).
    const util::json::Value* oldObject = nullptr;
    const authn::UserInfo* user = nullptr;  // null for the server's own writes
    bool dryRun = false;

    bool isKind(std::string_view group, std::string_view kindName) const {
        return kind && kind->group == group && kind->kind == kindName;
    }
};

// A denial is a Status (403 Forbidden, 404, 500...); null admits.
using Callback = std::function<void(const meta::Status* denied)>;

// Mirrors admission.Interface: a named plugin saying which requests it
// judges. Plugins answer through a callback, possibly later on the loop
// (reads of the store); they never block.
class Interface {
  public:
    virtual ~Interface() = default;
    virtual std::string_view name() const = 0;
    virtual bool handles(const Attributes& a) const = 0;
};

// Mirrors admission.MutationInterface: may change the object.
class MutationInterface : public virtual Interface {
  public:
    virtual void admit(Attributes& a, Callback done) = 0;
};

// Mirrors admission.ValidationInterface: judges the final object.
class ValidationInterface : public virtual Interface {
  public:
    virtual void validate(const Attributes& a, Callback done) = 0;
};

}  // namespace kube::admission

namespace kube::admission {

// The name a refusal carries: the request's, else the object's name or
// generateName, else "Unknown" (admission's extractResourceName).
std::string requestName(const Attributes& a);

// Mirrors admission.NewForbidden: 403 on the request's resource, naming the
// object (its generateName while the name is still to be made, "Unknown"
// without either).
meta::Status forbidden(const Attributes& a, std::string_view message);

}  // namespace kube::admission
