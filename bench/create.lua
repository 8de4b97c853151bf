-- wrk script for the CREATE case: every request POSTs a new ConfigMap.
--
--   wrk ... -s bench/create.lua URL -- NAMESPACE TAG
--
-- Names are "<TAG>-<thread>-<counter>": the thread id keeps wrk's threads
-- apart, TAG keeps separate runs (plain, TLS) apart, so every POST must be
-- answered 201. (wrk calls request() once at start-up to check the request,
-- so thread 1's counter 1 is never sent.) done() prints how many answers each status code had, since
-- wrk's own summary only counts "non-2xx or 3xx".

local threads = {}
local next_id = 0

function setup(thread)
    next_id = next_id + 1
    thread:set("id", next_id)
    table.insert(threads, thread)
end

local namespace, tag, path
local counter = 0
-- global: done() reads it from every thread with thread:get()
statuses = {}
local headers = { ["Content-Type"] = "application/json" }

function init(args)
    namespace = args[1] or "bench"
    tag = args[2] or "c"
    path = "/api/v1/namespaces/" .. namespace .. "/configmaps"
end

function request()
    counter = counter + 1
    local name = string.format("%s-%d-%d", tag, id, counter)
    local body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"' .. name
        .. '","labels":{"app":"bench"}},"data":{"key1":"value-one","key2":"value-two",'
        .. '"key3":"value-three"}}'
    return wrk.format("POST", path, headers, body)
end

function response(status, hdrs, body)
    statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
    local total = {}
    for _, thread in ipairs(threads) do
        local s = thread:get("statuses")
        for code, n in pairs(s) do
            total[code] = (total[code] or 0) + n
        end
    end
    local codes = {}
    for code in pairs(total) do
        table.insert(codes, code)
    end
    table.sort(codes)
    local parts = {}
    for _, code in ipairs(codes) do
        table.insert(parts, string.format("%d=%d", code, total[code]))
    end
    io.write("status codes: " .. table.concat(parts, " ") .. "\n")
end
