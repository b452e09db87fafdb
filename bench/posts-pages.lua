-- Walks the pages of the URL's posts list (page 0 to 999, then again): every request another page,
-- so that what a page shows of other rows (authors, feeds, mentions) is not the same every time.
-- The URL's own query is kept; `page` is added to it.
local counter = 0
request = function()
  counter = counter + 1
  local separator = string.find(wrk.path, "?", 1, true) and "&" or "?"
  return wrk.format("GET", wrk.path .. separator .. "page=" .. (counter % 1000))
end
