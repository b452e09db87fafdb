-- member add with a fresh email and a fresh Idempotency-Key per request (the -H headers kept)
local counter = 0
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
