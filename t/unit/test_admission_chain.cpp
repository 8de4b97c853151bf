#include <memory>
#include <string>
#include <vector>

#include "admission/chain.hpp"

// cmocka last: its fail() macro breaks standard headers included after it.
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}
// clang-format on

using namespace kube::admission;

namespace {

// A plugin that records its calls in `log`, answers later (when `pending`
// is given) or at once, and denies when told to.
class Recorder : public MutationInterface, public ValidationInterface {
  public:
    Recorder(std::string name, std::vector<std::string>& log, bool mutating, bool validating,
             bool denies = false, std::vector<Callback>* pending = nullptr)
        : name_(std::move(name)),
          log_(log),
          mutating_(mutating),
          validating_(validating),
          denies_(denies),
          pending_(pending) {}

    std::string_view name() const override { return name_; }
    bool handles(const Attributes& a) const override {
        return a.operation == Operation::Create;
    }
    void admit(Attributes&, Callback done) override {
        if (mutating_) {
            answer("admit " + name_, std::move(done));
        } else {
            done(nullptr);
        }
    }
    void validate(const Attributes&, Callback done) override {
        if (validating_) {
            answer("validate " + name_, std::move(done));
        } else {
            done(nullptr);
        }
    }

  private:
    void answer(std::string what, Callback done) {
        log_.push_back(std::move(what));
        auto reply = [this](Callback cb) {
            if (denies_) {
                kube::meta::Status s = kube::meta::Status::forbidden({"", "pods"}, "p", name_);
                cb(&s);
            } else {
                cb(nullptr);
            }
        };
        if (pending_) {
            pending_->push_back([reply, done](const kube::meta::Status*) { reply(done); });
            return;
        }
        reply(std::move(done));
    }

    std::string name_;
    std::vector<std::string>& log_;
    bool mutating_, validating_, denies_;
    std::vector<Callback>* pending_;
};

std::string joined(const std::vector<std::string>& log) {
    std::string out;
    for (const std::string& l : log) {
        out += (out.empty() ? "" : ", ") + l;
    }
    return out;
}

void mutating_plugins_run_in_order_before_validating_ones(void**) {
    std::vector<std::string> log;
    std::vector<Callback> pending;
    Chain chain;
    chain.add(std::make_shared<Recorder>("a", log, true, true, false, &pending));
    chain.add(std::make_shared<Recorder>("b", log, false, true));
    chain.add(std::make_shared<Recorder>("c", log, true, false, false, &pending));
    auto attrs = std::make_shared<Attributes>();
    attrs->operation = Operation::Create;
    int calls = 0;
    bool denied = true;
    chain.admitAndValidate(attrs, [&](const kube::meta::Status* d) {
        calls++;
        denied = d != nullptr;
    });
    // Asynchronous answers: nothing moves on until each plugin answers.
    while (!pending.empty()) {
        Callback next = std::move(pending.front());
        pending.erase(pending.begin());
        next(nullptr);
    }
    assert_int_equal(calls, 1);
    assert_false(denied);
    assert_string_equal(joined(log).c_str(),
                        "admit a, admit c, validate a, validate b");
}

void the_first_denial_ends_the_request(void**) {
    std::vector<std::string> log;
    Chain chain;
    chain.add(std::make_shared<Recorder>("a", log, true, true));
    chain.add(std::make_shared<Recorder>("b", log, true, false, true));
    chain.add(std::make_shared<Recorder>("c", log, true, true));
    auto attrs = std::make_shared<Attributes>();
    int calls = 0;
    std::string message;
    chain.admitAndValidate(attrs, [&](const kube::meta::Status* denied) {
        calls++;
        message = denied ? denied->message : "";
    });
    assert_int_equal(calls, 1);
    assert_string_equal(message.c_str(), "pods \"p\" is forbidden: b");
    assert_string_equal(joined(log).c_str(), "admit a, admit b");
}

void plugins_that_do_not_handle_a_request_are_skipped(void**) {
    std::vector<std::string> log;
    Chain chain;
    chain.add(std::make_shared<Recorder>("a", log, true, true, true));
    Attributes attrs;
    attrs.operation = Operation::Delete;
    assert_false(chain.mutates(attrs));
    assert_false(chain.validates(attrs));
    int calls = 0;
    chain.admit(attrs, [&](const kube::meta::Status* denied) {
        calls++;
        assert_null(denied);
    });
    chain.validate(attrs, [&](const kube::meta::Status* denied) {
        calls++;
        assert_null(denied);
    });
    assert_int_equal(calls, 2);
    assert_true(log.empty());
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mutating_plugins_run_in_order_before_validating_ones),
        cmocka_unit_test(the_first_denial_ends_the_request),
        cmocka_unit_test(plugins_that_do_not_handle_a_request_are_skipped),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
