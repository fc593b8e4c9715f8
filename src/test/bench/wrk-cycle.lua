-- The full cycle through wrk, a load generator that costs almost no CPU: per connection, post 10, claim
-- 10, delete the claimed by ids (v1, project "wrk", queue "wrkq"; create it first). Run with -t equal to -c,
-- so that each thread's state belongs to one connection; messages/s = requests/s x 10 / 3.
--   curl -X PUT -H 'X-Project-Id: wrk' localhost:8080/v1/queues/wrkq
--   wrk -t4 -c4 -d15s -s src/test/bench/wrk-cycle.lua http://localhost:8080
local phase = 0
local ids = ""
local items = {}
for i = 0, 9 do
  items[#items + 1] = string.format('{"ttl": 3600, "body": {"event": "bench", "n": %d, "pad": "0123456789abcdef"}}', i)
end
local post_body = "[" .. table.concat(items, ", ") .. "]"
local headers = { ["Content-Type"] = "application/json", ["X-Project-Id"] = "wrk",
                  ["Client-ID"] = "3381af92-2b9e-11e3-b191-71861300734c" }
claimed_total = 0
request = function()
  if phase == 0 then
    return wrk.format("POST", "/v1/queues/wrkq/messages", headers, post_body)
  elseif phase == 1 then
    return wrk.format("POST", "/v1/queues/wrkq/claims?limit=10", headers, '{"ttl": 60, "grace": 60}')
  else
    return wrk.format("DELETE", "/v1/queues/wrkq/messages?ids=" .. ids, headers)
  end
end
response = function(status, hdrs, body)
  if phase == 0 then
    phase = 1
  elseif phase == 1 then
    if status == 201 then
      local t = {}
      for id in body:gmatch("/messages/(%x+)%?claim_id") do t[#t + 1] = id end
      ids = table.concat(t, ",")
      claimed_total = claimed_total + #t
      phase = 2
    else
      phase = 0
    end
  else
    phase = 0
  end
end
