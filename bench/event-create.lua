-- event create (title and start) with a fresh Idempotency-Key per request (the -H headers kept);
-- the events start at 2099-01-01T10:00Z like the bench's events.create (removeBenchWrites finds them)
local counter = 0
-- Seeded per run: LuaJIT's sequence is otherwise the same in every wrk run, and a key sent again
-- with another body is refused (422) instead of creating.
math.randomseed(os.time())
request = function()
  counter = counter + 1
  local key = string.format("%08x-%04x-4%03x-8%03x-%012x", math.random(0, 0x7fffffff), math.random(0, 0xffff), math.random(0, 0xfff), math.random(0, 0xfff), counter)
  local headers = { ["content-type"] = "application/json", ["idempotency-key"] = key }
  for name, value in pairs(wrk.headers) do headers[name] = value end
  local body = '{"title":"AB created ' .. counter .. '","start_date":"2099-01-01T10:00:00Z"}'
  return wrk.format("POST", nil, headers, body)
end
