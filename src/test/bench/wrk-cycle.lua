-- The full cycle through wrk, a load generator that costs almost no CPU: per connection, post 10, claim
-- 10, delete the claimed by ids. Run with -t equal to -c, so that each thread's state belongs to one
-- connection. `./mvnw -Pbench -Dbench.scenarios=ratio` runs it; by hand:
--
--   BENCH_API=v1 BENCH_LAYOUT=shared wrk -t4 -c4 -d15s -s src/test/bench/wrk-cycle.lua http://localhost:8080
--
-- Environment: BENCH_API v1 (default) or v2; BENCH_PROJECT (default "wrk"); BENCH_LAYOUT "shared" (every
-- connection uses queue BENCH_QUEUE, "1" by default), "per-client" (connection n uses queue "n") or "random"
-- (each cycle picks queue "1" to BENCH_QUEUES of project BENCH_PROJECT, or of BENCH_PROJECT-1 to
-- BENCH_PROJECT-<BENCH_PROJECTS> when BENCH_PROJECTS is given, at random: those queues must exist);
-- BENCH_RATE requests/s per connection (default 0: as fast as the answers come); BENCH_BATCH messages per
-- post and per claim (default 10); BENCH_BODY_BYTES the size of each body as Pigeon stores it (compact JSON,
-- default 0: the usual small body, about 50 bytes); BENCH_GROUPS message groups (default 0: messages name no
-- group): each connection names groups "g0" to "g<BENCH_GROUPS - 1>" in turn, message by message, from a start of
-- its own, so every post spreads its messages over the groups round-robin; BENCH_ORDERING the queue's "_ordering"
-- (none, fifo or fair), sent in the body of the queue's creation (v2 only). Queues are created by the first request
-- of each connection (but for "random"). At the end it prints one line per request type,
--   "BENCH <type> <count> <p50 ms> <p90 ms> <p99 ms> <max ms>"
-- (latencies as the upper edge of a 2 % wide bucket) and "BENCH messages <deleted>" (messages that went
-- through the whole cycle).
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock, bench_timespec *ts);
]]
local clock = ffi.new("bench_timespec")
local function now_us()
  ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
  return tonumber(clock.tv_sec) * 1000000 + tonumber(clock.tv_nsec) / 1000
end

local api = os.getenv("BENCH_API") or "v1"
local project = os.getenv("BENCH_PROJECT") or "wrk"
local layout = os.getenv("BENCH_LAYOUT") or "shared"
local rate = tonumber(os.getenv("BENCH_RATE") or "0")
local shared_queue = os.getenv("BENCH_QUEUE") or "1"
local queue_count = tonumber(os.getenv("BENCH_QUEUES") or "1")
local project_count = tonumber(os.getenv("BENCH_PROJECTS") or "0")
local batch = tonumber(os.getenv("BENCH_BATCH") or "10")
local body_bytes = tonumber(os.getenv("BENCH_BODY_BYTES") or "0")
local groups = tonumber(os.getenv("BENCH_GROUPS") or "0")
local ordering = os.getenv("BENCH_ORDERING")

local threads = {}
local connection_count = 0
function setup(thread)
  connection_count = connection_count + 1
  thread:set("connection", connection_count)
  threads[#threads + 1] = thread
end

-- A big body's pad is random hex digits, which PostgreSQL's TOAST compression cannot shrink to nothing (as it
-- would a repeated character): {"event":"bench","pad":"..."} is 26 bytes around the pad once Pigeon has made it
-- compact.
local pad = ""
if body_bytes > 0 then
  local digits = {}
  for i = 1, math.max(0, body_bytes - 26) do
    digits[i] = string.format("%x", math.random(0, 15))
  end
  pad = table.concat(digits)
end
local items = {}
for i = 0, batch - 1 do
  if body_bytes > 0 then
    items[#items + 1] = string.format('{"ttl": 3600, "body": {"event": "bench", "pad": "%s"}}', pad)
  else
    items[#items + 1] = string.format('{"ttl": 3600, "body": {"event": "bench", "n": %d, "pad": "0123456789abcdef"}}', i)
  end
end
local function document(messages)
  local body = "[" .. table.concat(messages, ", ") .. "]"
  return api == "v2" and '{"messages": ' .. body .. '}' or body
end
local post_body = document(items)
local queue_body = ordering and string.format('{"_ordering": "%s"}', ordering) or nil
-- With groups, each message of a post names the connection's next group (a post is built per request then).
local next_group = 0
local function grouped_post_body()
  local grouped = {}
  for i, item in ipairs(items) do
    grouped[i] = item:sub(1, -2) .. string.format(', "group": "g%d"}', next_group)
    next_group = (next_group + 1) % groups
  end
  return document(grouped)
end
local function headers_of(project_id)
  return { ["Content-Type"] = "application/json", ["X-Project-Id"] = project_id,
           ["Client-ID"] = "3381af92-2b9e-11e3-b191-71861300734c" }
end
local headers = headers_of(project)

-- Per thread (one connection each): where in the cycle it is, and what it measured. Latencies are
-- counted in buckets 2 % wide, one global number per request type and bucket ("post_17"), because wrk's
-- thread:get copies numbers to the main thread reliably but crashes on tables.
local GROWTH = 1.02
local BUCKETS = 800 -- 10 us x 1.02^800: about 70 s
local phase = "create"
local ids = ""
local started = 0
local next_send = 0
messages = 0

-- The queue of the current cycle ("random" picks one at each post, and keeps it for the claim and delete).
local queue = nil

local function path(suffix)
  if queue == nil then
    queue = layout == "per-client" and tostring(connection) or shared_queue
  end
  return "/" .. api .. "/queues/" .. queue .. suffix
end

if layout == "random" then
  phase = "post"
end

-- Runs in each thread after setup has given it its connection number: each draws its own queues.
function init(args)
  math.randomseed(os.time() * 1000 + connection * 7919)
  if groups > 0 then
    next_group = ((connection - 1) * batch) % groups
  end
end

if rate > 0 then
  -- Paced: the next request is due 1/rate after the previous one was due, not after its answer, so a
  -- slow answer does not lower the offered rate (unless it is slower than the whole interval).
  delay = function()
    local now = now_us()
    if next_send == 0 then
      next_send = now
    end
    next_send = next_send + 1000000 / rate
    local wait = (next_send - now) / 1000
    return wait > 0 and wait or 0
  end
end

request = function()
  started = now_us()
  if phase == "create" then
    return wrk.format("PUT", path(""), headers, queue_body)
  elseif phase == "post" then
    if layout == "random" then
      queue = tostring(math.random(queue_count))
      if project_count > 0 then
        headers = headers_of(project .. "-" .. math.random(project_count))
      end
    end
    return wrk.format("POST", path("/messages"), headers, groups > 0 and grouped_post_body() or post_body)
  elseif phase == "claim" then
    return wrk.format("POST", path("/claims?limit=" .. batch), headers, '{"ttl": 60, "grace": 60}')
  else
    return wrk.format("DELETE", path("/messages?ids=" .. ids), headers)
  end
end

local function record(kind)
  local micros = now_us() - started
  local bucket = micros <= 10 and 0 or math.min(BUCKETS, math.floor(math.log(micros / 10) / math.log(GROWTH)))
  local name = kind .. "_" .. bucket
  _G[name] = (_G[name] or 0) + 1
end

response = function(status, hdrs, body)
  if phase == "create" then
    phase = "post"
  elseif phase == "post" then
    record("post")
    phase = "claim"
  elseif phase == "claim" then
    record("claim")
    if status == 201 then
      local found = {}
      for id in body:gmatch("/messages/(%x+)%?claim_id") do found[#found + 1] = id end
      ids = table.concat(found, ",")
      phase = "delete"
    else
      phase = "post" -- 204: others took them (shared queue)
    end
  else
    record("delete")
    if status == 204 then
      local _, commas = ids:gsub(",", "")
      messages = messages + commas + 1
    end
    phase = "post"
  end
end

done = function(summary, latency, requests)
  local moved = 0
  for _, thread in ipairs(threads) do
    moved = moved + thread:get("messages")
  end
  for _, kind in ipairs({ "post", "claim", "delete" }) do
    local counts, total = {}, 0
    for bucket = 0, BUCKETS do
      local count = 0
      for _, thread in ipairs(threads) do
        count = count + (thread:get(kind .. "_" .. bucket) or 0)
      end
      counts[bucket] = count
      total = total + count
    end
    local function percentile(p)
      local rank, seen = math.max(1, math.ceil(p * total)), 0
      for bucket = 0, BUCKETS do
        seen = seen + counts[bucket]
        if seen >= rank then
          return 10 * GROWTH ^ (bucket + 1) / 1000 -- the bucket's upper edge, in ms
        end
      end
      return 0
    end
    io.write(string.format("BENCH %s %d %.2f %.2f %.2f %.2f\n", kind, total, percentile(0.50), percentile(0.90),
      percentile(0.99), percentile(1.0)))
  end
  io.write(string.format("BENCH messages %d\n", moved))
end
