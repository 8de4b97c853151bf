#include "storage/interface.hpp"

namespace kube::storage {

std::string spliceRevision(std::string_view value, size_t offset, Revision revision) {
    if (offset == std::string::npos || offset > value.size()) {
        return std::string(value);
    }
    std::string digits = std::to_string(revision);
    std::string out;
    out.reserve(value.size() + digits.size());
    out.append(value.substr(0, offset));
    out.append(digits);
    out.append(value.substr(offset));
    return out;
}

void Interface::getLatest(std::string_view key, GetCallback cb) {
    get(key, [this, key = std::string(key), cb = std::move(cb)](const Error& err,
                                                                const ObjectView* obj) mutable {
        if (err.code != ErrorCode::NotFound || !readsMayLag()) {
            cb(err, obj);
            return;
        }
        waitFresh([this, key = std::move(key), cb = std::move(cb)](const Error& fresh) mutable {
            if (fresh.ok()) {
                get(key, std::move(cb));
            } else {
                getLinearizable(key, std::move(cb));
            }
        });
    });
}

}  // namespace kube::storage
