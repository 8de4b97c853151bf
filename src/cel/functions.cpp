#include "cel/functions.hpp"

namespace kube::cel {

namespace {

std::string implKey(std::string_view function, bool receiver, size_t argc) {
    return std::string(function) + (receiver ? "/r/" : "/g/") + std::to_string(argc);
}

}  // namespace

FunctionRegistry::FunctionRegistry() {
    addStandardFunctions(*this);
    addTimeFunctions(*this);
    addStringsLibrary(*this);
    addListsLibrary(*this);
    addRegexLibrary(*this);
    addUrlLibrary(*this);
}

const FunctionRegistry& FunctionRegistry::instance() {
    static const FunctionRegistry registry;
    return registry;
}

std::vector<const Signature*> FunctionRegistry::find(std::string_view function,
                                                     bool receiver) const {
    std::vector<const Signature*> out;
    for (const Signature& s : signatures_) {
        if (s.function == function && s.receiver == receiver) {
            out.push_back(&s);
        }
    }
    return out;
}

bool FunctionRegistry::declared(std::string_view function) const {
    for (const Signature& s : signatures_) {
        if (s.function == function) {
            return true;
        }
    }
    return false;
}

Impl FunctionRegistry::impl(std::string_view function, bool receiver, size_t argc) const {
    auto it = impls_.find(implKey(function, receiver, argc));
    return it == impls_.end() ? nullptr : it->second;
}

void FunctionRegistry::add(Signature s) {
    signatures_.push_back(std::move(s));
}

void FunctionRegistry::add(std::string function, bool receiver, size_t argc, Impl impl) {
    impls_[implKey(function, receiver, argc)] = impl;
}

}  // namespace kube::cel
