/**
 * The Pacer's and the breaker's rules (backoff-core's pacer-rules and circuit-rules), as Lua run inside Redis: each
 * operation reads one key, applies its rule and writes it back in one atomic step, so that every process sharing
 * the store sees one lane and one circuit. State is kept with cmsgpack (exact doubles); answers are flat arrays of
 * strings ('%.17g', no precision lost). The first element of every answer is the time the script ran by: Redis's
 * own `TIME` (so that every process agrees), or the caller's `now` when the store runs on the caller's clock.
 *
 * Keep these in step with pacer-rules.ts and circuit-rules.ts: the shared contract suite runs against both.
 */

const COMMON = `
local NEG = -1e300
local function N(x)
  if x == nil then return '' end
  if x == true then return '1' end
  if x == false then return '0' end
  return string.format('%.17g', x)
end
local function num(s)
  if s == nil or s == '' then return nil end
  return tonumber(s)
end
local function clock(caller, server)
  if server == '1' then
    local t = redis.call('TIME')
    return math.floor(tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000)
  end
  return caller
end
-- Whether each of \`fields\` of \`value\` is a number (\`optional\`: or absent).
local function numbers(value, fields, optional)
  for _, field in ipairs(fields) do
    local v = value[field]
    if not (type(v) == 'number' or (optional and v == nil)) then return false end
  end
  return true
end
-- The value at \`key\`, nil when there is none; and \`true\` when there is one this store cannot read (another
-- writer's: another type, not msgpack, or not of the shape \`valid\` checks).
local function load(key, valid)
  local raw = redis.pcall('GET', key)
  if type(raw) == 'table' and raw.err then return nil, true end
  if not raw then return nil, false end
  local ok, value = pcall(cmsgpack.unpack, raw)
  if not ok or type(value) ~= 'table' or not valid(value) then return nil, true end
  return value, false
end
local function save(key, value, ttl)
  ttl = math.max(1, math.min(86400000, math.ceil(ttl)))
  redis.call('SET', key, cmsgpack.pack(value), 'PX', ttl)
end
`;

/**
 * KEYS[1]: the lane. ARGV: op ('reserve' | 'confirm' | 'release' | 'learn' | 'read'), the caller's now, '1' to run on Redis's
 * clock, then the op's own arguments (see the store).
 */
export const PACE_SCRIPT = `${COMMON}
local BETA, SCALE, SMOOTH, MIN_RATE, BUCKET, ROUND, IDLE, SPREAD = 0.7, 0.4, 0.8, 0.5, 500, 1000, 60000, 0.05
local FAR = 9007199254740991
local BARE_PAUSE, BARE_MAX = 150, 60000
local SHARED_GROWTH = 1.1

local function forgetAfter(interval) return math.max(1000, interval * 2) end

-- A lane's identity: a hold names the lane it was reserved in, so that a lane made anew (Redis restarted, the key
-- expired) is never taken for the queue the hold's slot was in.
local function born()
  local t = redis.call('TIME')
  return t[1] .. '.' .. t[2]
end

local function isLane(l)
  return numbers(l, {'reset', 'next', 'last', 'sent', 'counted', 'lastMax', 'lastThrottle', 'measured', 'bucket',
      'count', 'seen', 'forget'})
    and numbers(l, {'left', 'interval', 'rate', 'pause', 'paused', 'won', 'since', 'cut', 'from', 'stretch'}, true)
    and (l.holes == nil or type(l.holes) == 'table') and (l.id == nil or type(l.id) == 'string')
end

local function newLane(now, stated)
  return {
    id = born(), reset = 0, interval = stated, stated = stated ~= nil, paced = stated ~= nil, next = now, last = NEG,
    sent = 0, counted = 0, lastMax = 0, lastThrottle = NEG, measured = 0, bucket = now, count = 0, seen = now,
    forget = (stated == nil) and IDLE or forgetAfter(stated), pause = 0, paused = NEG, won = 0, since = now,
    cut = 0, from = now, stretch = 1,
  }
end

local function spent(l, now) return l.left ~= nil and l.left <= 0 and l.reset > now end

local function stepOf(l)
  if l.paced and l.interval ~= nil then return l.interval end
  if l.rate == nil then return 0 end
  return 1000 / l.rate
end

local function bare(l, a, now, ticket)
  -- A bare 429 (no rate stated, no Retry-After): the quota is spent until a time nobody said. The lane is held
  -- for a pause, widened by as much again when a send let go soon after the last pause is refused again.
  local paused = l.paused or NEG
  if a.sentAt < paused then return end
  local pause = l.pause or 0
  if pause ~= 0 and a.sentAt - paused < math.max(pause, ROUND) then
    l.pause = math.min(BARE_MAX, pause + BARE_PAUSE)
  else
    l.pause = BARE_PAUSE
  end
  l.left = math.min(l.left or 0, 0)
  l.reset = math.max(l.reset, math.min(FAR, now + l.pause))
  l.counted = math.max(l.counted, ticket)
  l.paused = l.reset
end

local function acceptedSince(l, now)
  -- The successes since the last cut (or the lane's last quiet spell), per second over at least a round.
  local won = l.won or 0
  if won == 0 then return 0 end
  return (won * 1000) / math.max(ROUND, now - (l.since or now))
end

local function accepted(l, sentAt, now)
  -- A shared lane's cut: to the rate the server accepted since the last cut (every process's successes from the
  -- first of them, over at least a round). No success since then, or only successes to sends after this one, is
  -- no news of the rate: the pause holds the lane. A cut that lowers the rate stretches the queue reserved.
  local before = l.rate
  local won = l.won or 0
  if before ~= nil and (won == 0 or sentAt < (l.since or NEG)) then return l end
  local rate = acceptedSince(l, now)
  if rate == 0 then rate = 1000 / ROUND end
  rate = math.max(MIN_RATE, rate)
  if before ~= nil and rate < before then
    l.cut = l.sent
    l.from = now
    l.stretch = before / rate
    if l.next > now then l.next = now + (l.next - now) * l.stretch end
  end
  l.rate = rate
  l.lastMax = rate
  l.lastThrottle = now
  l.won = 0
  return l
end

local function learn(l, a, now, stated)
  local throttled = a.status == 429
  if l == nil then l = newLane(now, stated) end
  l.seen = now
  if a.status < 400 then
    l.count = l.count + 1
    if (l.won or 0) == 0 then l.since = now end
    l.won = (l.won or 0) + 1
  end
  if now - l.bucket >= BUCKET then
    local rate = (l.count * 1000) / (now - l.bucket)
    if l.measured == 0 then l.measured = rate else l.measured = rate * SMOOTH + l.measured * (1 - SMOOTH) end
    l.count = 0
    l.bucket = now
  end
  if a.interval ~= nil then
    l.interval = a.interval
    l.stated = false
    l.forget = forgetAfter(a.interval)
  end
  local ticket = 0
  if a.ticket ~= nil and a.ticket <= l.sent then ticket = a.ticket end
  if a.remaining ~= nil and ticket >= l.counted then
    l.left = a.remaining - (l.sent - ticket)
    if a.reset == nil then l.reset = 0 else l.reset = math.min(FAR, now + a.reset) end
    l.counted = ticket
  end
  if (throttled or a.status == 503) and a.serverDelay ~= nil then
    l.left = math.min(l.left or 0, 0)
    l.reset = math.max(l.reset, math.min(FAR, now + a.serverDelay))
    l.counted = math.max(l.counted, ticket)
  end
  if throttled and a.serverDelay == nil and a.remaining == nil and l.interval == nil and a.shared then
    bare(l, a, now, ticket)
  end
  if spent(l, now) then
    if l.interval ~= nil then l.paced = true end
  elseif a.status < 400 and l.left ~= nil and l.left > 0 then
    l.paced = false
  end
  if l.interval ~= nil then return l end
  if throttled then
    if a.sentAt < l.lastThrottle or now - l.lastThrottle < ROUND then return l end
    if a.shared then return accepted(l, a.sentAt, now) end
    -- Never below what the server accepted since the last cut: buckets also count time nothing was sent in.
    local succeeded = l.measured
    if succeeded == 0 then succeeded = (l.count * 1000) / math.max(1, now - l.bucket) end
    succeeded = math.max(succeeded, acceptedSince(l, now))
    if succeeded == 0 then succeeded = 1000 / math.max(1, now - a.sentAt) end
    local base = math.min(l.rate or math.huge, succeeded)
    l.lastMax = base
    l.lastThrottle = now
    l.won = 0
    l.rate = math.max(MIN_RATE, base * BETA)
  elseif l.rate ~= nil and a.status < 400 then
    local k = ((l.lastMax * (1 - BETA)) / SCALE) ^ (1 / 3)
    local cubic = SCALE * ((now - l.lastThrottle) / 1000 - k) ^ 3 + l.lastMax
    -- A shared lane was cut to the rate the server accepted: it stays there until the curve passes it, and grows
    -- more slowly beyond.
    local growth = 2
    if a.shared then growth = SHARED_GROWTH end
    if l.measured > 0 then cubic = math.min(cubic, growth * l.measured) end
    if a.shared then cubic = math.max(l.lastMax, cubic) end
    l.rate = math.max(MIN_RATE, cubic)
  end
  return l
end

local function earliest(l, now)
  local floor = now
  if spent(l, now) then floor = math.max(now, l.reset) end
  if stepOf(l) == 0 then return floor, -1 end
  if l.holes ~= nil then
    for i, h in ipairs(l.holes) do
      if h >= floor then return h, i end
    end
  end
  return math.max(floor, l.next), -1
end

-- A hold refused for passing the deadline's rest or maxRetryAfter; one at the horizon (a reset too large to
-- represent) reports the cap it passed.
local function refusal(slot, wait, within, maxRetryAfter, reason)
  local limit = 'maxRetryAfter'
  if within < maxRetryAfter then limit = 'deadline' end
  if slot >= FAR then wait = math.min(within, maxRetryAfter) end
  return {'refused', '', '', N(wait), reason, limit}
end

local function reserve(l, now, within, r, maxRetryAfter)
  if l.left ~= nil and l.reset <= now then l.left = nil end
  local spentNow = spent(l, now)
  if spentNow and l.interval ~= nil then l.paced = true end
  local step = stepOf(l)
  if l.holes ~= nil then
    while #l.holes > 0 and l.holes[1] < now do table.remove(l.holes, 1) end
    if #l.holes == 0 then l.holes = nil end
  end
  local slot, hole = earliest(l, now)
  local wait = math.ceil(slot - now)
  local reason = 'throttled'
  if spentNow or l.paced then reason = 'rate-limit' end
  local probe = wait > maxRetryAfter and now - math.max(l.last, l.seen) >= maxRetryAfter and (spentNow or not l.stated)
  if probe then
    slot = now
    hole = -1
  elseif wait > within or wait > maxRetryAfter then
    return refusal(slot, wait, within, maxRetryAfter, reason)
  end
  if hole >= 1 then
    table.remove(l.holes, hole)
    if #l.holes == 0 then l.holes = nil end
  elseif step > 0 then
    l.next = math.max(l.next, slot + step * (1 + SPREAD))
  end
  -- Quiet for a round or more: what the server accepts is counted afresh from this send on.
  if now - math.max(l.seen, l.last) >= ROUND then l.won = 0 end
  l.last = math.max(l.last, slot)
  l.seen = math.max(l.seen, now)
  if l.left ~= nil then l.left = l.left - 1 end
  l.sent = l.sent + 1
  local ticket = l.sent
  if slot <= now then return {'go', N(ticket)} end
  if not (r >= 0 and r < 1) then r = 1 end
  local spread = math.floor(r * math.min(step, maxRetryAfter) * SPREAD)
  local delay = math.min(wait + spread, math.max(wait, math.min(within, maxRetryAfter)))
  return {'held', N(ticket), N(slot), N(delay), reason}
end

local function release(l, slot, now)
  if slot <= now then return end
  if l.left ~= nil then l.left = l.left + 1 end
  if stepOf(l) == 0 then return end
  if l.holes == nil then l.holes = {} end
  local i = #l.holes
  while i > 0 and l.holes[i] > slot do i = i - 1 end
  table.insert(l.holes, i + 1, slot)
end

local function lastTouch(l) return math.max(l.seen, l.next, l.last, l.reset) end
local function idle(l, now) return now - lastTouch(l) > l.forget end
local function keep(key, l, now) save(key, l, lastTouch(l) - now + l.forget + 1) end

local key = KEYS[1]
local op = ARGV[1]
local now = clock(tonumber(ARGV[2]), ARGV[3])
local l, unreadable = load(key, isLane)
-- Another writer's value: this key only is paced by each process on its own, the others stay shared.
if unreadable then return {N(now), 'unreadable'} end
if l ~= nil and idle(l, now) and op ~= 'release' then l = nil end
if l ~= nil and l.id == nil then l.id = born() end

-- A reservation's answer: the time first, and a hold's lane last (after the place of a refusal's limit).
local function answered(answer)
  if answer[1] == 'held' then
    answer[6] = ''
    answer[7] = l.id
  end
  table.insert(answer, 1, N(now))
  return answer
end

-- A send's reservation on the lane (a new one when \`stated\`, else none: the send goes).
local function reserved(within, r, maxRetryAfter, stated, ticket)
  if l == nil then
    if stated == nil then return {N(now), 'go', ticket} end
    l = newLane(now, stated)
  end
  local answer = reserve(l, now, within, r, maxRetryAfter)
  keep(key, l, now)
  return answered(answer)
end

if op == 'reserve' then
  return reserved(tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), num(ARGV[7]), '0')
elseif op == 'confirm' then
  -- A hold come due: its send goes, unless the lane was paused meanwhile (then a new slot after the pause), or
  -- it was reserved before a cut of the rate (then its slot stretched to the new rate, as a reservation). A hold
  -- of a lane there is no more (Redis restarted, the key expired) takes a place in the queue there is now.
  local ticket, within, r, maxRetryAfter = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local slot, reason, lane, stated = tonumber(ARGV[8]), ARGV[9], ARGV[10], num(ARGV[11])
  if l == nil or l.id ~= lane or now < (l.paused or NEG) then
    return reserved(within, r, maxRetryAfter, stated, ticket)
  end
  if tonumber(ticket) > (l.cut or 0) or slot <= (l.from or NEG) then return {N(now), 'go', ticket} end
  local stretched = l.from + (slot - l.from) * l.stretch
  local wait = math.ceil(stretched - now)
  if wait <= 0 then return {N(now), 'go', ticket} end
  if wait > within or wait > maxRetryAfter then
    local answer = refusal(stretched, wait, within, maxRetryAfter, reason)
    table.insert(answer, 1, N(now))
    return answer
  end
  l.sent = l.sent + 1
  keep(key, l, now)
  return answered({'held', N(l.sent), N(stretched), N(wait), reason})
elseif op == 'release' then
  -- Given back only to the lane it was reserved in: a lane made since never had that slot.
  if l ~= nil and l.id == ARGV[5] then
    release(l, tonumber(ARGV[4]), now)
    keep(key, l, now)
  end
  return {N(now)}
elseif op == 'learn' then
  local caller = tonumber(ARGV[2])
  local a = {
    status = tonumber(ARGV[4]), ticket = num(ARGV[5]), sentAt = tonumber(ARGV[6]) - caller + now,
    serverDelay = num(ARGV[7]), remaining = num(ARGV[8]), reset = num(ARGV[9]), interval = num(ARGV[10]),
    shared = ARGV[12] == '1',
  }
  l = learn(l, a, now, num(ARGV[11]))
  keep(key, l, now)
  return {N(now)}
else
  if l == nil then return {N(now), '0'} end
  local slot = earliest(l, now)
  return {N(now), N(math.max(0, math.ceil(slot - now)))}
end
`;

/**
 * KEYS[1]: the circuit. ARGV: op ('admit' | 'record' | 'read'), the caller's now, '1' to run on Redis's clock,
 * the rules (failureRatio or '', minimumCalls, window, consecutiveFailures or '', breakDuration, maxBreakDuration,
 * halfOpenProbes), then for 'record': failed ('1', '0' or ''), serverDelay or '', probe ('1' or '0').
 */
export const CIRCUIT_SCRIPT = `${COMMON}
local BUCKETS = 10
local key = KEYS[1]
local op = ARGV[1]
local now = clock(tonumber(ARGV[2]), ARGV[3])
local rules = {
  failureRatio = num(ARGV[4]), minimumCalls = tonumber(ARGV[5]), window = tonumber(ARGV[6]),
  consecutiveFailures = num(ARGV[7]), breakDuration = tonumber(ARGV[8]), maxBreakDuration = tonumber(ARGV[9]),
  halfOpenProbes = tonumber(ARGV[10]),
}

local function zeros() local t = {} for i = 1, BUCKETS do t[i] = 0 end return t end
local function newCircuit()
  return { state = 'closed', openUntil = 0, opens = 0, consecutive = 0, probes = 0, successes = 0,
    starts = zeros(), calls = zeros(), failures = zeros(), restored = false }
end
local function breakAfter(opens)
  return math.min(rules.maxBreakDuration, rules.breakDuration * 2 ^ (math.max(1, opens) - 1))
end
local function settle(c)
  if not c.restored then return end
  c.restored = false
  c.openUntil = math.min(c.openUntil, now + breakAfter(c.opens))
end
local function move(c, to)
  local from = c.state
  c.state = to
  c.probes = 0
  c.successes = 0
  if to == 'closed' then
    c.opens = 0
    c.consecutive = 0
    c.calls = zeros()
    c.failures = zeros()
  end
  local openUntil = ''
  if to == 'open' then openUntil = N(c.openUntil) end
  return {from, to, N(now), openUntil}
end
local function open(c, serverDelay)
  c.opens = c.opens + 1
  c.openUntil = now + math.max(breakAfter(c.opens), serverDelay or 0)
  return move(c, 'open')
end

local function admit(c)
  settle(c)
  if c.state == 'closed' then return {'1', '0', '0'} end
  local change = nil
  if c.state == 'open' then
    if now < c.openUntil then return {'0', '0', N(c.openUntil - now)} end
    c.openUntil = now
    change = move(c, 'half-open')
  end
  if c.probes >= rules.halfOpenProbes then
    if now - c.openUntil < rules.maxBreakDuration then return {'0', '0', '0'} end
    c.probes = 0
    c.openUntil = now
  end
  c.probes = c.probes + 1
  local answer = {'1', '1', '0'}
  if change ~= nil then for _, v in ipairs(change) do table.insert(answer, v) end end
  return answer
end

local function record(c, failed, serverDelay, probe)
  settle(c)
  if c.state == 'half-open' then
    if not probe then return nil end
    if failed == nil then c.probes = math.max(0, c.probes - 1)
    elseif failed then return open(c, serverDelay)
    else
      c.successes = c.successes + 1
      if c.successes >= rules.halfOpenProbes then return move(c, 'closed') end
    end
    return nil
  end
  if c.state ~= 'closed' or failed == nil then return nil end
  local span = rules.window / BUCKETS
  local start = now - (now % span)
  local index = math.floor(now / span) % BUCKETS + 1
  if c.starts[index] ~= start then
    c.starts[index] = start
    c.calls[index] = 0
    c.failures[index] = 0
  end
  c.calls[index] = c.calls[index] + 1
  if not failed then
    c.consecutive = 0
    return nil
  end
  c.failures[index] = c.failures[index] + 1
  c.consecutive = c.consecutive + 1
  if rules.consecutiveFailures ~= nil and c.consecutive >= rules.consecutiveFailures then
    return open(c, serverDelay)
  end
  if rules.failureRatio == nil then return nil end
  local calls, failures = 0, 0
  for i = 1, BUCKETS do
    if now - c.starts[i] < rules.window then
      calls = calls + c.calls[i]
      failures = failures + c.failures[i]
    end
  end
  if calls >= rules.minimumCalls and failures >= rules.failureRatio * calls then return open(c, serverDelay) end
  return nil
end

local function keep(c)
  save(key, c, math.max(rules.window, c.openUntil - now + rules.maxBreakDuration) + rules.window)
end

local function isCircuit(c)
  return (c.state == 'closed' or c.state == 'open' or c.state == 'half-open')
    and numbers(c, {'openUntil', 'opens', 'consecutive', 'probes', 'successes'})
    and type(c.starts) == 'table' and type(c.calls) == 'table' and type(c.failures) == 'table'
    and #c.starts == BUCKETS and #c.calls == BUCKETS and #c.failures == BUCKETS
end

local c, unreadable = load(key, isCircuit)
-- Another writer's value: this origin only is kept by each process on its own, the others stay shared.
if unreadable then return {N(now), 'unreadable'} end
if op == 'admit' then
  if c == nil then return {N(now), '1', '0', '0'} end
  local answer = admit(c)
  keep(c)
  table.insert(answer, 1, N(now))
  return answer
elseif op == 'record' then
  local failed = nil
  if ARGV[11] == '1' then failed = true elseif ARGV[11] == '0' then failed = false end
  if c == nil then
    if failed == nil or (not failed and rules.failureRatio == nil) then return {N(now)} end
    c = newCircuit()
  end
  local change = record(c, failed, num(ARGV[12]), ARGV[13] == '1')
  keep(c)
  local answer = {N(now)}
  if change ~= nil then for _, v in ipairs(change) do table.insert(answer, v) end end
  return answer
else
  if c == nil then return {N(now)} end
  local answer = {N(now), c.state, N(c.openUntil), N(c.opens), N(c.consecutive), N(c.probes), N(c.successes),
    N(c.restored)}
  for i = 1, BUCKETS do
    table.insert(answer, N(c.starts[i]))
    table.insert(answer, N(c.calls[i]))
    table.insert(answer, N(c.failures[i]))
  end
  return answer
end
`;

/**
 * KEYS[1]: a key of the store's own (`${prefix}check`). Runs every command the other scripts run (TIME, SET, GET) on
 * a key under the prefix, so that an ACL that would refuse one of them refuses it here, at `check()`.
 */
export const CHECK_SCRIPT = `
local t = redis.call('TIME')
redis.call('SET', KEYS[1], t[1], 'PX', 60000)
return {redis.call('GET', KEYS[1])}
`;
