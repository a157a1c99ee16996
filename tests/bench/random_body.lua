-- random_body.lua - wrk script: every request POSTs a body drawn at random
-- from a file of bodies (one JSON object a line, from make_requests.py).
-- BODIES (environment) names the file; the path is the URL's. The same
-- script loads nginx, which answers every body with one static file: both
-- servers see the same requests and wrk spends the same work on each.
local bodies = {}
local path = "/"

function init(args)
    local file = assert(io.open(os.getenv("BODIES"), "r"))
    for line in file:lines() do
        if #line > 0 then bodies[#bodies + 1] = line end
    end
    file:close()
    path = wrk.path
    math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
end

local headers = { ["Content-Type"] = "application/json" }

function request()
    return wrk.format("POST", path, headers, bodies[math.random(#bodies)])
end
