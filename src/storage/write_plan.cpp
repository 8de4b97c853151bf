#include "storage/write_plan.hpp"

#include <unordered_map>

namespace kube::storage {

namespace {

// The precondition `op` breaks given the key's `current` object, or Ok.
Error checkOp(const WriteOp& op, const std::optional<Object>& current) {
    if (op.type == WriteOp::Type::Create) {
        return current ? keyError(ErrorCode::KeyExists, op.key, "already exists") : Error{};
    }
    if (!current) {
        return keyError(ErrorCode::NotFound, op.key, "not found");
    }
    if (op.expectedModRevision != 0 && current->modRevision != op.expectedModRevision) {
        return keyError(ErrorCode::Conflict, op.key,
                        "has mod revision " + std::to_string(current->modRevision) + ", expected " +
                            std::to_string(op.expectedModRevision));
    }
    return Error{};
}

// What `op` stores at revision `rev`; `current` is present unless op is a Create.
Object planOp(const WriteOp& op, std::optional<Object>&& current, Revision rev) {
    Object out;
    out.key = op.key;
    out.modRevision = rev;
    switch (op.type) {
        case WriteOp::Type::Create:
            out.value = spliceRevision(op.value, op.revisionOffset, rev);
            out.createRevision = rev;
            break;
        case WriteOp::Type::Update:
            out.value = spliceRevision(op.value, op.revisionOffset, rev);
            out.createRevision = current->createRevision;
            break;
        case WriteOp::Type::Delete:
            out.value = std::move(current->value);
            out.createRevision = current->createRevision;
            break;
    }
    return out;
}

}  // namespace

bool planWrite(const std::vector<WriteOp>& ops, Revision base, const Lookup& lookup,
               WriteResult& result) {
    result.objects.assign(ops.size(), Object{});
    // Per key touched by this call, the index of its latest op.
    std::unordered_map<std::string_view, size_t> staged;
    for (size_t i = 0; i < ops.size(); i++) {
        const WriteOp& op = ops[i];
        std::optional<Object> current;
        Error err;
        if (auto s = staged.find(op.key); s != staged.end()) {
            if (ops[s->second].type != WriteOp::Type::Delete) {
                current = result.objects[s->second];
            }
        } else {
            err = lookup(op.key, current);
        }
        if (err.ok()) {
            err = checkOp(op, current);
        }
        if (!err.ok()) {
            result.objects.assign(ops.size(), Object{});
            if (current) {
                result.objects[i] = std::move(*current);
            }
            result.error = std::move(err);
            result.failedOp = i;
            return false;
        }
        result.objects[i] = planOp(op, std::move(current), base + i + 1);
        staged[op.key] = i;
    }
    return true;
}

Error keyError(ErrorCode code, std::string_view key, std::string_view what) {
    return {code, "key \"" + std::string(key) + "\" " + std::string(what)};
}

Error compactedError(Revision after, Revision compacted) {
    return {ErrorCode::Compacted,
            "required revision " + std::to_string(after + 1) +
                " has been compacted (oldest kept: " + std::to_string(compacted) + ")"};
}

}  // namespace kube::storage
