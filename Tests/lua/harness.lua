-- The shared harness of the stock-lua5.4 tests in Tests/lua: puts lua/ on package.path, counts cases, prints one
-- line per failing case and ends the run (exit 1 on any failure). A test loads it with
--   local harness = dofile(((arg and arg[0] or ""):match("^(.*)[/\\]") or ".") .. "/harness.lua")

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
local harness = { root = here .. "/../..", cases = 0, failures = 0 }
package.path = harness.root .. "/lua/?.lua;" .. package.path

-- Strings quoted (and cut at 120 bytes, hostile inputs are long) so that "" and "nil" read apart.
function harness.show(v)
  if type(v) == "string" then return string.format("%q", #v > 120 and v:sub(1, 120) .. "..." or v) end
  return tostring(v)
end

-- Counts one case; checks that record their own outcome call this, then harness.fail on a failure.
function harness.case()
  harness.cases = harness.cases + 1
end

function harness.fail(format, ...)
  harness.failures = harness.failures + 1
  print("FAIL " .. string.format(format, ...))
end

function harness.check(name, got, want)
  harness.case()
  if got ~= want then harness.fail("%s: got %s, want %s", name, harness.show(got), harness.show(want)) end
end

function harness.check_true(name, cond)
  harness.check(name, cond and true or false, true)
end

-- Ends the run: exit 1 with a count of failures, else prints `success` (default "ok %d cases") with the count.
function harness.finish(success)
  if harness.failures > 0 then
    print(string.format("%d of %d cases failed", harness.failures, harness.cases))
    os.exit(1)
  end
  print(string.format(success or "ok %d cases", harness.cases))
end

return harness
