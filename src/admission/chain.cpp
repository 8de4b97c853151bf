#include "admission/chain.hpp"

namespace kube::admission {

std::string_view operationName(Operation op) {
    switch (op) {
        case Operation::Create:
            return "CREATE";
        case Operation::Update:
            return "UPDATE";
        case Operation::Delete:
            return "DELETE";
        case Operation::Connect:
            return "CONNECT";
    }
    return "";
}

void Chain::add(std::shared_ptr<Interface> plugin) {
    if (auto* m = dynamic_cast<MutationInterface*>(plugin.get())) {
        mutating_.push_back(m);
    }
    if (auto* v = dynamic_cast<ValidationInterface*>(plugin.get())) {
        validating_.push_back(v);
    }
    plugins_.push_back(std::move(plugin));
}

bool Chain::mutates(const Attributes& a) const {
    for (const MutationInterface* m : mutating_) {
        if (m->handles(a)) {
            return true;
        }
    }
    return false;
}

bool Chain::validates(const Attributes& a) const {
    for (const ValidationInterface* v : validating_) {
        if (v->handles(a)) {
            return true;
        }
    }
    return false;
}

void Chain::admit(Attributes& a, Callback done) {
    runMutating(0, a, std::move(done));
}

void Chain::validate(const Attributes& a, Callback done) {
    runValidating(0, a, std::move(done));
}

void Chain::admitAndValidate(std::shared_ptr<Attributes> a, Callback done) {
    Attributes& attrs = *a;
    admit(attrs, [this, a, done = std::move(done)](const meta::Status* denied) {
        if (denied) {
            done(denied);
            return;
        }
        validate(*a, [a, done](const meta::Status* d) { done(d); });
    });
}

void Chain::runMutating(size_t i, Attributes& a, Callback done) {
    while (i < mutating_.size() && !mutating_[i]->handles(a)) {
        i++;
    }
    if (i == mutating_.size()) {
        done(nullptr);
        return;
    }
    mutating_[i]->admit(a, [this, i, &a, done = std::move(done)](const meta::Status* denied) {
        if (denied) {
            done(denied);
            return;
        }
        runMutating(i + 1, a, done);
    });
}

void Chain::runValidating(size_t i, const Attributes& a, Callback done) {
    while (i < validating_.size() && !validating_[i]->handles(a)) {
        i++;
    }
    if (i == validating_.size()) {
        done(nullptr);
        return;
    }
    validating_[i]->validate(a, [this, i, &a, done = std::move(done)](const meta::Status* denied) {
        if (denied) {
            done(denied);
            return;
        }
        runValidating(i + 1, a, done);
    });
}

}  // namespace kube::admission

namespace kube::admission {

std::string requestName(const Attributes& a) {
    std::string name = a.name;
    if (name.empty()) {
        name = "Unknown";
        if (a.object && a.object->IsObject()) {
            if (const util::json::Value* m = util::json::member(*a.object, "metadata");
                m && m->IsObject()) {
                std::string_view n = util::json::stringMember(*m, "name");
                std::string_view g = util::json::stringMember(*m, "generateName");
                if (!n.empty()) {
                    name = n;
                } else if (!g.empty()) {
                    name = g;
                }
            }
        }
    }
    return name;
}

meta::Status forbidden(const Attributes& a, std::string_view message) {
    return meta::Status::forbidden(a.kind ? a.kind->groupResource() : meta::GroupResource{},
                                   requestName(a), message);
}

}  // namespace kube::admission
