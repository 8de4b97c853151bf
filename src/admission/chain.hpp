#pragma once

#include <memory>
#include <vector>

#include "admission/interface.hpp"

namespace kube::admission {

// Mirrors admission's chainAdmissionHandler: the plugins in their
// registration order; every mutating one that handles a request runs, then
// every validating one, each after the previous one admitted. The first
// denial ends the request. A plugin that is both runs in both phases.
class Chain {
  public:
    void add(std::shared_ptr<Interface> plugin);

    // Whether any plugin would mutate (or validate) `a`: the store skips a
    // phase nobody handles.
    bool mutates(const Attributes& a) const;
    bool validates(const Attributes& a) const;

    // The mutating phase. `a` must live until `done` runs.
    void admit(Attributes& a, Callback done);
    // The validating phase. `a` must live until `done` runs.
    void validate(const Attributes& a, Callback done);
    // Both phases, `a` kept alive by the chain (a delete's admission).
    void admitAndValidate(std::shared_ptr<Attributes> a, Callback done);

  private:
    void runMutating(size_t i, Attributes& a, Callback done);
    void runValidating(size_t i, const Attributes& a, Callback done);

    std::vector<std::shared_ptr<Interface>> plugins_;
    std::vector<MutationInterface*> mutating_;
    std::vector<ValidationInterface*> validating_;
};

}  // namespace kube::admission
