#pragma once

#include <string>

namespace kube::registry::patch {

// Why a patch could not be applied, classified the way kube-apiserver's patch
// handler maps the patch libraries' errors to HTTP answers.
struct Error {
    enum class Kind {
        // The patch document itself is malformed: 400 BadRequest with the message.
        BadRequest,
        // The patch does not apply to the object (a failed JSON patch "test",
        // a missing path, a list of lists): 422 with kube's generic message.
        Unprocessable,
        // Anything else the libraries report: kube answers 500 with the
        // message and no reason.
        Other,
    };

    Kind kind = Kind::Other;
    std::string message;
};

}  // namespace kube::registry::patch
