-- wrk script for GET and LIST with another Accept header:
--
--   wrk ... -s bench/accept.lua URL -- "application/vnd.kubernetes.protobuf"

function init(args)
    wrk.headers["Accept"] = args[1]
end
