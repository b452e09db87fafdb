-- member add with a fresh email and a fresh Idempotency-Key per request (the -H headers kept)
local counter = 0
-- Seeded per run: LuaJIT's sequence is otherwise the same in every wrk run, and a key sent again
-- with another body is refused (422) instead of creating.
math.randomseed(os.time())
local seed = tostring(os.time()) .. tostring(math.random(1000000))
request = function()
  counter = counter + 1
  local id = seed .. "-" .. counter
  local key = string.format("%08x-%04x-4%03x-8%03x-%012x", math.random(0, 0x7fffffff), math.random(0, 0xffff), math.random(0, 0xfff), math.random(0, 0xfff), counter)
  local headers = { ["content-type"] = "application/json", ["idempotency-key"] = key }
  for name, value in pairs(wrk.headers) do headers[name] = value end
  local body = '{"email":"ab-' .. id .. '@bench.example.com","full_name":"AB Member"}'
  return wrk.format("POST", nil, headers, body)
end
