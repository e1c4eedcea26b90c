-- SPDX-License-Identifier: GPL-2.0-only
-- A deterministic CPU-bound Lua workload for bench/quality.sh: the
-- interpreter's dispatch loop, calls, tables, strings, closures,
-- metatables and floating point, in proportions like a scripting job's.
-- Usage: lua lua-bench.lua N   (work grows linearly with N; prints one
-- checksum line per part, the same for the same N on every build)

local N = tonumber(arg and arg[1]) or 10

-- Park-Miller LCG, exact in doubles and integers alike: no math.random,
-- whose seed and algorithm are not the same across builds and versions.
local seed = 12345
local function rnd(m)
  seed = (seed * 48271) % 2147483647
  return seed % m
end

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local function sieve(n)
  local comp, count = {}, 0
  for i = 2, n do
    if not comp[i] then
      count = count + 1
      for j = i * i, n, i do comp[j] = true end
    end
  end
  return count
end

local syll = { "ka", "lo", "mi", "nu", "se", "ta", "ri", "po", "da", "ve", "zu", "he" }
local function word()
  local t = {}
  for i = 1, 1 + rnd(4) do t[i] = syll[1 + rnd(#syll)] end
  return table.concat(t)
end

local function strings(nlines)
  local freq, lines = {}, {}
  for i = 1, nlines do
    local w = {}
    for j = 1, 3 + rnd(8) do w[j] = word() end
    lines[i] = string.format("%05d %s;", i, table.concat(w, " "))
  end
  local text = table.concat(lines, "\n")
  for w in text:gmatch("%a+") do freq[w] = (freq[w] or 0) + 1 end
  local up = text:gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end)
  local distinct, top = 0, 0
  for _, c in pairs(freq) do
    distinct = distinct + 1
    if c > top then top = c end
  end
  local hits = 0
  for i = 1, #lines, 7 do
    if lines[i]:find("ka%a*lo") then hits = hits + 1 end
  end
  return distinct + top + #up + hits
end

local Vec = {}
Vec.__index = Vec
Vec.__add = function(a, b) return setmetatable({ x = a.x + b.x, y = a.y + b.y }, Vec) end
function Vec.new(x, y) return setmetatable({ x = x, y = y }, Vec) end
function Vec:scale(k) return Vec.new(self.x * k, self.y * k) end
function Vec:dot(o) return self.x * o.x + self.y * o.y end

local function objects(n)
  local acc, s = Vec.new(0, 0), 0.0
  for i = 1, n do
    local v = Vec.new(i % 17, i % 13):scale(0.5)
    acc = acc + v
    s = s + v:dot(acc) * 1e-6
  end
  return math.floor(s)
end

local function sorting(n)
  local t = {}
  for i = 1, n do t[i] = { key = rnd(100000), name = word() } end
  table.sort(t, function(a, b)
    if a.key ~= b.key then return a.key < b.key end
    return a.name < b.name
  end)
  local h = 0
  for i = 1, n, 97 do h = (h * 31 + t[i].key) % 1000000007 end
  return h
end

-- spectral norm: float arithmetic in nested loops with calls
local function A(i, j)
  local ij = i + j - 1
  return 1.0 / (ij * (ij - 1) * 0.5 + i)
end
local function Av(x, y, n)
  for i = 1, n do
    local a = 0
    for j = 1, n do a = a + x[j] * A(i, j) end
    y[i] = a
  end
end
local function Atv(x, y, n)
  for i = 1, n do
    local a = 0
    for j = 1, n do a = a + x[j] * A(j, i) end
    y[i] = a
  end
end
local function spectral(n)
  local u, v, t = {}, {}, {}
  for i = 1, n do u[i] = 1 end
  for _ = 1, 10 do
    Av(u, t, n) Atv(t, v, n)
    Av(v, t, n) Atv(t, u, n)
  end
  local vBv, vv = 0, 0
  for i = 1, n do
    local ui, vi = u[i], v[i]
    vBv = vBv + ui * vi
    vv = vv + vi * vi
  end
  return string.format("%.9f", math.sqrt(vBv / vv))
end

local function closures(n)
  local fs = {}
  for i = 1, 64 do
    local k = i
    fs[i] = function(x) return (x * k + i) % 65521 end
  end
  local x = 1
  for i = 1, n do x = fs[1 + (x + i) % 64](x) end
  return x
end

for round = 1, N do
  print(round,
    fib(22),
    sieve(60000),
    strings(1500),
    objects(40000),
    sorting(6000),
    spectral(60),
    closures(100000))
end
