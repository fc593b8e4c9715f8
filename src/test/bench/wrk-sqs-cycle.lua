-- The full cycle of wrk-cycle.lua through the SQS wire (AWS JSON 1.0) instead of the Zaqar API, so that the two
-- wires' costs per message can be set side by side (issue 42): per connection, SendMessageBatch of 10,
-- ReceiveMessage of up to 10, DeleteMessageBatch of the receipt handles received. Run with -t equal to -c, so that
-- each thread's state belongs to one connection. `./mvnw -Pbench -Dbench.scenarios=sqs-wire` runs it beside
-- wrk-cycle.lua; by hand, against a Pigeon in auth mode none:
--
--   BENCH_PROJECT=wrk BENCH_LAYOUT=shared wrk -t4 -c4 -d15s -s src/test/bench/wrk-sqs-cycle.lua http://localhost:8080
--
-- Auth mode none only: every request carries a fixed Authorization header whose Credential names the project
-- (BENCH_PROJECT, default "wrk"), which that mode takes unchecked; no signature is computed. BENCH_LAYOUT "shared"
-- (every connection on queue BENCH_QUEUE, default "sqs-1") or "per-client" (connection n on queue "sqs-n"); the
-- queue is created (CreateQueue, which answers the URL of an existing one) by each connection's first request.
-- Bodies are the Zaqar cycle's body as text, so the two wires move the same bytes. At the end it prints the lines
-- of wrk-cycle.lua ("BENCH post|claim|delete <count> <p50> <p90> <p99> <max>" in ms, send, receive and delete
-- under the Zaqar names, and "BENCH messages <deleted>"); a batch entry that failed is printed as
-- "BENCH failed <count>", and a receive that found nothing is not counted as a delete.
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

local project = os.getenv("BENCH_PROJECT") or "wrk"
local layout = os.getenv("BENCH_LAYOUT") or "shared"
local shared_queue = os.getenv("BENCH_QUEUE") or "sqs-1"

local threads = {}
local connection_count = 0
function setup(thread)
  connection_count = connection_count + 1
  thread:set("connection", connection_count)
  threads[#threads + 1] = thread
end

local function headers_for(action)
  return {
    ["Content-Type"] = "application/x-amz-json-1.0",
    ["X-Amz-Target"] = "AmazonSQS." .. action,
    ["X-Amz-Date"] = "20260101T000000Z",
    ["Authorization"] = "AWS4-HMAC-SHA256 Credential=" .. project
        .. "/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=00",
  }
end
local create_headers = headers_for("CreateQueue")
local send_headers = headers_for("SendMessageBatch")
local receive_headers = headers_for("ReceiveMessage")
local delete_headers = headers_for("DeleteMessageBatch")

local GROWTH = 1.02
local BUCKETS = 800
local phase = "create"
local queue_url = nil
local send_body, receive_body = nil, nil
local delete_body = nil
local handles = 0
local started = 0
messages = 0
failed = 0

local function queue_name()
  return layout == "per-client" and ("sqs-" .. connection) or shared_queue
end

request = function()
  started = now_us()
  if phase == "create" then
    return wrk.format("POST", "/", create_headers, '{"QueueName":"' .. queue_name() .. '"}')
  elseif phase == "post" then
    return wrk.format("POST", "/", send_headers, send_body)
  elseif phase == "claim" then
    return wrk.format("POST", "/", receive_headers, receive_body)
  else
    return wrk.format("POST", "/", delete_headers, delete_body)
  end
end

local function record(kind)
  local micros = now_us() - started
  local bucket = micros <= 10 and 0 or math.min(BUCKETS, math.floor(math.log(micros / 10) / math.log(GROWTH)))
  local name = kind .. "_" .. bucket
  _G[name] = (_G[name] or 0) + 1
end

local function entries_of_ten()
  local entries = {}
  for i = 0, 9 do
    entries[#entries + 1] = string.format(
      '{"Id":"m%d","MessageBody":"{\\"event\\":\\"bench\\",\\"n\\":%d,\\"pad\\":\\"0123456789abcdef\\"}"}', i, i)
  end
  return "[" .. table.concat(entries, ",") .. "]"
end

response = function(status, hdrs, body)
  if phase == "create" then
    queue_url = body:match('"QueueUrl"%s*:%s*"([^"]+)"')
    if status ~= 200 or queue_url == nil then
      error("CreateQueue answered " .. status .. ": " .. body)
    end
    send_body = '{"QueueUrl":"' .. queue_url .. '","Entries":' .. entries_of_ten() .. '}'
    receive_body = '{"QueueUrl":"' .. queue_url .. '","MaxNumberOfMessages":10,"VisibilityTimeout":60}'
    phase = "post"
  elseif phase == "post" then
    record("post")
    if body:find('"Failed"%s*:%s*%[%s*{') then
      failed = failed + 1
    end
    phase = "claim"
  elseif phase == "claim" then
    record("claim")
    local entries = {}
    for handle in body:gmatch('"ReceiptHandle"%s*:%s*"([^"]+)"') do
      entries[#entries + 1] = '{"Id":"d' .. #entries .. '","ReceiptHandle":"' .. handle .. '"}'
    end
    if status == 200 and #entries > 0 then
      handles = #entries
      delete_body = '{"QueueUrl":"' .. queue_url .. '","Entries":[' .. table.concat(entries, ",") .. ']}'
      phase = "delete"
    else
      phase = "post" -- nothing received: others took them (shared queue)
    end
  else
    record("delete")
    if status == 200 then
      if body:find('"Failed"%s*:%s*%[%s*{') then
        failed = failed + 1
      else
        messages = messages + handles
      end
    end
    phase = "post"
  end
end

done = function(summary, latency, requests)
  local moved, failures = 0, 0
  for _, thread in ipairs(threads) do
    moved = moved + thread:get("messages")
    failures = failures + thread:get("failed")
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
  if failures > 0 then
    io.write(string.format("BENCH failed %d\n", failures))
  end
  io.write(string.format("BENCH messages %d\n", moved))
end
