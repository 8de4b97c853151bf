-- wrk script for the CREATE case: every request POSTs a new ConfigMap.
--
--   wrk ... -s bench/create.lua URL -- NAMESPACE TAG [protobuf]
--
-- With "protobuf" the same ConfigMap goes as a Kubernetes protobuf body
-- (the "k8s\0" envelope around a runtime.Unknown), as kubectl 1.32+ sends
-- its typed creates.
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

local namespace, tag, path, protobuf
local counter = 0
-- global: done() reads it from every thread with thread:get()
statuses = {}
local headers = { ["Content-Type"] = "application/json" }

function init(args)
    namespace = args[1] or "bench"
    tag = args[2] or "c"
    protobuf = args[3] == "protobuf"
    path = "/api/v1/namespaces/" .. namespace .. "/configmaps"
    if protobuf then
        headers["Content-Type"] = "application/vnd.kubernetes.protobuf"
    end
end

-- The protobuf wire format, just what a ConfigMap needs.
local function varint(n)
    local out = {}
    while n >= 128 do
        table.insert(out, string.char(n % 128 + 128))
        n = math.floor(n / 128)
    end
    table.insert(out, string.char(n))
    return table.concat(out)
end

local function field(number, bytes)
    return varint(number * 8 + 2) .. varint(#bytes) .. bytes
end

local function entry(key, value)
    return field(1, key) .. field(2, value)
end

local data = { { "key1", "value-one" }, { "key2", "value-two" }, { "key3", "value-three" } }

-- ConfigMap: metadata = 1 (ObjectMeta: name = 1, labels = 11), data = 2.
local function protobuf_body(name)
    local meta = field(1, name) .. field(11, entry("app", "bench"))
    local cm = field(1, meta)
    for _, kv in ipairs(data) do
        cm = cm .. field(2, entry(kv[1], kv[2]))
    end
    local type_meta = field(1, "v1") .. field(2, "ConfigMap")
    return "k8s\0" .. field(1, type_meta) .. field(2, cm) .. field(3, "") .. field(4, "")
end

function request()
    counter = counter + 1
    local name = string.format("%s-%d-%d", tag, id, counter)
    local body
    if protobuf then
        body = protobuf_body(name)
    else
        body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"' .. name
            .. '","labels":{"app":"bench"}},"data":{"key1":"value-one","key2":"value-two",'
            .. '"key3":"value-three"}}'
    end
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
