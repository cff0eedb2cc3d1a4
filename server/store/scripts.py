"""The Lua scripts of the store, each with its KEYS/ARGV contract.

Each script touches one cluster slot: the keys of one race (one hash tag), of one queue,
or one key (with its marker), all passed in ``KEYS``; Redis runs it atomically. Only the
store's modules call them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class LuaScript:
    """A script and its contract: the names of its KEYS and ARGV, and what it answers."""

    name: str
    keys: tuple[str, ...]
    argv: tuple[str, ...]
    answers: str
    source: str

    def source_for(self, sharded: bool) -> str:
        """The script as run: with sharded pub/sub (Redis 7) its events go out with
        ``SPUBLISH``, which reaches only the shard of the channel's slot. Every channel a
        script publishes to shares the hash tag of its keys, as ``SPUBLISH`` in a script
        requires on a cluster."""
        return (
            self.source.replace("redis.call('PUBLISH',", "redis.call('SPUBLISH',") if sharded else self.source
        )


#: Lua that names a seat (a table) for the race's seats (``HGETALL``'s flat list) but
#: ``me``'s: the first of the names in ARGV from ``first`` on (name, fold, name, fold, ...)
#: whose fold no other seat's has; the seat JSON. A seat written before folds were kept
#: has its name lower-cased instead (ASCII only, the best Lua can do).
_SEAT_NAME: Final = """
local function named(seat, seats, me, first)
  local taken = {}
  for i = 1, #seats, 2 do
    if seats[i] ~= me then
      local other = cjson.decode(seats[i + 1])
      taken[other['fold'] or string.lower(other['name'])] = true
    end
  end
  seat['name'], seat['fold'] = ARGV[first], ARGV[first + 1]
  for i = first, #ARGV - 1, 2 do
    if not taken[ARGV[i + 1]] then
      seat['name'], seat['fold'] = ARGV[i], ARGV[i + 1]
      break
    end
  end
  return cjson.encode(seat)
end
"""

#: The ARGV of a seat's names: the player's name, then the same numbered (2, 3, ...),
#: each with its fold; the seat takes the first no other seat of the race has.
_SEAT_NAMES_ARGV: Final = "name, fold, numbered name, its fold, ...: the first whose fold is free"

JOIN: Final = LuaScript(
    "join",
    keys=("meta", "racers"),
    argv=("player id", "seat JSON", _SEAT_NAMES_ARGV),
    answers="{answer, the race's status ('' when not found)}: answer ok | already | not_found | "
    "not_open | full. The seat is named apart from the others (compared by fold).",
    source=_SEAT_NAME
    + """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found', ''} end
if status ~= 'open' then return {'not_open', status} end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {'already', status} end
local seats = tonumber(redis.call('HGET', KEYS[1], 'seats'))
if redis.call('HLEN', KEYS[2]) >= seats then return {'full', status} end
local seat = named(cjson.decode(ARGV[2]), redis.call('HGETALL', KEYS[2]), ARGV[1], 3)
redis.call('HSET', KEYS[2], ARGV[1], seat)
return {'ok', status}
""",
)

READY: Final = LuaScript(
    "ready",
    keys=("meta", "racers"),
    argv=("player id", "'1' ready or '0' not", "the racer's seed share ('' for none)"),
    answers="ok | all_ready (every seat taken by a ready racer, 2 or more) | not_found | "
    "not_a_racer | not_open",
    source="""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 'not_a_racer' end
if status ~= 'open' then return 'not_open' end
local seat = cjson.decode(raw)
seat['ready'] = (ARGV[2] == '1')
if ARGV[3] ~= '' then seat['share'] = ARGV[3] end
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(seat))
local all = redis.call('HVALS', KEYS[2])
if #all < 2 then return 'ok' end
for _, value in ipairs(all) do
  if not cjson.decode(value)['ready'] then return 'ok' end
end
return 'all_ready'
""",
)

RENAME_SEAT: Final = LuaScript(
    "rename_seat",
    keys=("meta", "racers"),
    argv=("player id", _SEAT_NAMES_ARGV),
    answers="ok | not_found | not_a_racer | over (the race is ending, finished or cancelled: "
    "its results keep the name it was raced under). The seat is named apart from the others "
    "(compared by fold): the plain new name when no other seat has it.",
    source=_SEAT_NAME
    + """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 'not_a_racer' end
if status ~= 'open' and status ~= 'countdown' and status ~= 'running' then return 'over' end
redis.call('HSET', KEYS[2], ARGV[1], named(cjson.decode(raw), redis.call('HGETALL', KEYS[2]), ARGV[1], 2))
return 'ok'
""",
)

LEAVE: Final = LuaScript(
    "leave",
    keys=("meta", "racers"),
    argv=("player id", "'1' to leave only a seat that is not ready (a rated start), else '0'"),
    answers="ok | cancelled (the race is now empty) | not_found | not_open | not_a_racer | "
    "ready (only an unready seat was to leave, and this one is ready: it stays)",
    source="""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status ~= 'open' then return 'not_open' end
if ARGV[2] == '1' then
  local raw = redis.call('HGET', KEYS[2], ARGV[1])
  if raw and cjson.decode(raw)['ready'] then return 'ready' end
end
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 'not_a_racer' end
if redis.call('HLEN', KEYS[2]) == 0 then
  redis.call('HSET', KEYS[1], 'status', 'cancelled')
  return 'cancelled'
end
if redis.call('HGET', KEYS[1], 'creator') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'creator', redis.call('HKEYS', KEYS[2])[1])
end
return 'ok'
""",
)

START: Final = LuaScript(
    "start",
    keys=("meta", "racers", "board of each racer, in the order of the player ids"),
    argv=(
        "starts_at",
        "ends_at",
        "position JSON",
        "initial score",
        "event",
        "channel",
        "the deal's seed",
        "'1' when every racer must be ready (the start a ready asked for), else '0'",
        "player ids...",
    ),
    answers="ok | changed (the seats are no longer exactly these players) | not_ready (one "
    "of them is not ready, and all had to be) | not_found | not_open",
    source="""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status ~= 'open' then return 'not_open' end
local count = #ARGV - 8
if redis.call('HLEN', KEYS[2]) ~= count then return 'changed' end
for i = 1, count do
  local raw = redis.call('HGET', KEYS[2], ARGV[8 + i])
  if not raw then return 'changed' end
  if ARGV[8] == '1' and not cjson.decode(raw)['ready'] then return 'not_ready' end
end
redis.call('HSET', KEYS[1], 'status', 'countdown', 'starts_at', ARGV[1], 'ends_at', ARGV[2],
  'racer_count', count, 'finished_count', 0, 'seed', ARGV[7])
for i = 1, count do
  redis.call('HSET', KEYS[2 + i], 'position', ARGV[3], 'seq', 0, 'move_count', 0,
    'score', ARGV[4], 'won', 0, 'finished', 0, 'score_at', ARGV[1], 'finished_at', 0)
end
redis.call('PUBLISH', ARGV[6], ARGV[5])
return 'ok'
""",
)

CLAIM_RACING: Final = LuaScript(
    "claim_racing",
    keys=("the player's racing claim",),
    argv=("race id", "ms the claim lasts", "the race whose claim it may take over ('' none)"),
    answers="'' when the race holds the claim now (taken, taken over, or renewed for as "
    "long as asked); else the race that holds it. One race at a time per player: a race "
    "claims each racer before its countdown begins.",
    source="""
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] and holder ~= ARGV[3] then return holder end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ''
""",
)

RELEASE_RACING: Final = LuaScript(
    "release_racing",
    keys=("the player's racing claim",),
    argv=("race id",),
    answers="1 when the race's claim was dropped, 0 when another race holds it (or none).",
    source="""
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
""",
)

REVEAL: Final = LuaScript(
    "reveal",
    keys=("meta", "racers"),
    argv=(
        "player id",
        "the racer's seed share, checked against its commitment by the caller ('' keeps none)",
    ),
    answers="ok | not_found | not_a_racer | not_open (the race has started: its deal is fixed)",
    source="""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 'not_a_racer' end
if status ~= 'open' and status ~= 'countdown' then return 'not_open' end
if ARGV[2] ~= '' then
  local seat = cjson.decode(raw)
  seat['share'] = ARGV[2]
  redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(seat))
end
return 'ok'
""",
)

GO: Final = LuaScript(
    "go",
    keys=("meta", "racers", "board of each racer, in the order of the player ids"),
    argv=(
        "now",
        "event",
        "channel",
        "ends_at",
        "the deal's seed",
        "position JSON of the deal ('' when the countdown's deal stands)",
        "initial score",
        "the racers whose shares are in the seed, sorted, comma-separated",
        "player ids...",
    ),
    answers="ok when the countdown was over and the race now runs; changed when the revealed "
    "shares are no longer exactly those given (one came meanwhile: mix again); no otherwise. "
    "The race starts now, however late its clock came: starts_at becomes now and ends_at now + "
    "time limit, so nobody loses playing time to a node that was down across the start. Shares "
    "revealed during the countdown change the seed: every board is dealt again from it.",
    source="""
if redis.call('HGET', KEYS[1], 'status') ~= 'countdown' then return 'no' end
if tonumber(ARGV[1]) < tonumber(redis.call('HGET', KEYS[1], 'starts_at')) then return 'no' end
local shared = {}
local seats = redis.call('HGETALL', KEYS[2])
for i = 1, #seats, 2 do
  if cjson.decode(seats[i + 1])['share'] then table.insert(shared, seats[i]) end
end
table.sort(shared)
if table.concat(shared, ',') ~= ARGV[8] then return 'changed' end
redis.call('HSET', KEYS[1], 'status', 'running', 'starts_at', ARGV[1], 'ends_at', ARGV[4], 'seed', ARGV[5])
if ARGV[6] ~= '' then
  for i = 3, #KEYS do
    redis.call('HSET', KEYS[i], 'position', ARGV[6], 'score', ARGV[7])
  end
end
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 'ok'
""",
)

VOID: Final = LuaScript(
    "void",
    keys=("meta",),
    argv=("now", "reason", "event", "channel"),
    answers="1 when a race still in countdown is now cancelled (void), else 0",
    source="""
if redis.call('HGET', KEYS[1], 'status') ~= 'countdown' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'cancel_reason', ARGV[2], 'ended_at', ARGV[1])
redis.call('PUBLISH', ARGV[4], ARGV[3])
return 1
""",
)

MOVE: Final = LuaScript(
    "move",
    keys=("meta", "board", "log", "nodes", "watchers"),
    argv=(
        "player id",
        "seq",
        "canonical move",
        "position JSON",
        "move_count",
        "score",
        "won ('1' or '0')",
        "now",
        "result JSON (kept as 'ack' to answer a resent seq)",
        "event",
        "channel",
        "the calling node's id",
        "the move as sent (kept as 'sent')",
        "whether 'undo' is allowed after it ('1' or '0', kept as 'can_undo')",
        "the race's watch channel",
    ),
    answers="{ok, finished count, racer count} | {dup} | {seq, current seq} | {not_found} | "
    "{not_started} | {over} | {not_a_racer} | {finished}. The compare-and-set of one move; the "
    "event is published only when a node other than the caller follows the race (the "
    "caller delivers it to its own sessions). While anyone watches the race (a watchers "
    "entry exists), the move itself goes to the watch channel as "
    '``{"p": player, "s": seq, "m": move, "at": ms}``. A move is stamped ``now``, but never '
    "before the racer's move before it nor before the start: nodes' clocks differ, and a "
    "record's times only go forward (the limit is still judged by the caller's ``now``).",
    source="""
local race = redis.call('HMGET', KEYS[1], 'status', 'ends_at', 'starts_at', 'finished_count', 'racer_count')
local status = race[1]
if not status then return {'not_found'} end
if status == 'countdown' then return {'not_started'} end
if status ~= 'running' then return {'over'} end
local now = tonumber(ARGV[8])
if now > tonumber(race[2]) then return {'over'} end
local board = redis.call('HMGET', KEYS[2], 'seq', 'finished', 'moved_at', 'score')
local seq = board[1]
if not seq then return {'not_a_racer'} end
local new_seq = tonumber(ARGV[2])
seq = tonumber(seq)
if new_seq == seq then return {'dup'} end
if new_seq ~= seq + 1 then return {'seq', tostring(seq)} end
if board[2] == '1' then return {'finished'} end
local at = ARGV[8]
local floor = board[3] or race[3]
if floor and tonumber(floor) > now then at = floor end
redis.call('HSET', KEYS[2], 'seq', new_seq, 'position', ARGV[4], 'move_count', ARGV[5],
  'score', ARGV[6], 'ack', ARGV[9], 'sent', ARGV[13], 'can_undo', ARGV[14], 'moved_at', at)
if board[4] ~= ARGV[6] then redis.call('HSET', KEYS[2], 'score_at', at) end
local finished = race[4]
if ARGV[7] == '1' then
  redis.call('HSET', KEYS[2], 'won', 1, 'finished', 1, 'finished_at', at)
  finished = redis.call('HINCRBY', KEYS[1], 'finished_count', 1)
end
redis.call('XADD', KEYS[3], '*', 'player', ARGV[1], 'seq', ARGV[2], 'move', ARGV[3],
  'at', at)
if redis.call('SCARD', KEYS[4]) > redis.call('SISMEMBER', KEYS[4], ARGV[12]) then
  redis.call('PUBLISH', ARGV[11], ARGV[10])
end
if redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('PUBLISH', ARGV[15], '{"p":' .. cjson.encode(ARGV[1]) .. ',"s":' .. ARGV[2] ..
    ',"m":' .. cjson.encode(ARGV[3]) .. ',"at":' .. at .. '}')
end
return {'ok', tostring(finished), race[5]}
""",
)

CONFIRM: Final = LuaScript(
    "confirm",
    keys=("board",),
    argv=("now",),
    answers="1. Notes when a resent move's ack was confirmed: a write in the board's slot, "
    "so the ``WAIT`` after it covers the move written before.",
    source="""
redis.call('HSET', KEYS[1], 'confirmed_at', ARGV[1])
return 1
""",
)

FINISH: Final = LuaScript(
    "finish",
    keys=("meta", "board"),
    argv=("now", "event", "channel"),
    answers="{ok, finished count, racer count} | {not_found} | {not_started} | {over} (also "
    "past ends_at, as a move then is) | {not_a_racer} | {finished}. A racer gives up.",
    source="""
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found'} end
if status == 'countdown' then return {'not_started'} end
if status ~= 'running' then return {'over'} end
if tonumber(ARGV[1]) > tonumber(redis.call('HGET', KEYS[1], 'ends_at')) then return {'over'} end
local done = redis.call('HGET', KEYS[2], 'finished')
if not done then return {'not_a_racer'} end
if done == '1' then return {'finished'} end
redis.call('HSET', KEYS[2], 'finished', 1, 'finished_at', ARGV[1])
local finished = redis.call('HINCRBY', KEYS[1], 'finished_count', 1)
redis.call('PUBLISH', ARGV[3], ARGV[2])
return {'ok', tostring(finished), redis.call('HGET', KEYS[1], 'racer_count')}
""",
)

BEGIN_END: Final = LuaScript(
    "begin_end",
    keys=("meta",),
    argv=("now",),
    answers="1 when the caller should complete the end (also after a crash mid-end), else 0. "
    "Stops accepting moves: running (or countdown) -> ending. ended_at is now, or ends_at "
    "when the clock comes late (no move is accepted after ends_at).",
    source="""
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'running' or status == 'countdown' then
  local ended_at = tonumber(ARGV[1])
  local ends_at = tonumber(redis.call('HGET', KEYS[1], 'ends_at'))
  if ends_at and ends_at > 0 and ended_at > ends_at then ended_at = ends_at end
  redis.call('HSET', KEYS[1], 'status', 'ending', 'ended_at', ended_at)
  return 1
end
if status == 'ending' then return 1 end
return 0
""",
)

END_PLAN: Final = LuaScript(
    "end_plan",
    keys=("meta", "plan"),
    argv=("plan JSON: summary, event, racers' writes, daily board entry",),
    answers="the race's plan (this one, or one another node fixed first), or nil when the "
    "race is not ending. Every node that completes the end applies the same plan.",
    source="""
if redis.call('HGET', KEYS[1], 'status') ~= 'ending' then return false end
redis.call('SET', KEYS[2], ARGV[1], 'NX')
return redis.call('GET', KEYS[2])
""",
)

END_FINISH: Final = LuaScript(
    "end_finish",
    keys=("meta", "summary", "plan"),
    argv=("channel",),
    answers="1 when this call finished the race, 0 when it was not ending. The race is "
    "finished, its summary stored and its end published, from the plan.",
    source="""
if redis.call('HGET', KEYS[1], 'status') ~= 'ending' then return 0 end
local plan = cjson.decode(redis.call('GET', KEYS[3]))
redis.call('HSET', KEYS[1], 'status', 'finished')
redis.call('SET', KEYS[2], plan.summary)
redis.call('PUBLISH', ARGV[1], plan.event)
return 1
""",
)

APPLY_ONCE: Final = LuaScript(
    "apply_once",
    keys=("marker: what was applied to the target (sorted set: op id -> ms)", "target"),
    argv=(
        "op id (a race id, a day)",
        "now",
        "how long the marker remembers (ms; no longer than the target has left, but 10 min at least)",
        "op: rating | zadd | zset | push | stats | zincrby | streak",
        "then the op's arguments: rating: expected games, rating, rd, volatility, games, "
        "last_at; zadd: member, score; zset: member, score ('' removes it), ...; push: value, "
        "kept; stats: won (1/0), "
        "time ms ('' for none); zincrby: member, amount, ...; streak: day number",
    ),
    answers="1 when applied now, 0 when this op id was applied before, -1 (rating) when "
    "the stored rating is not the one the new rating was computed from (nothing written). "
    "Each key of what a race's end or a day's close changes is written this way, so that "
    "a retry after a crash, or a second node completing the same end, writes nothing twice "
    "while the keys lie in different cluster slots.",
    source="""
local id, now = ARGV[1], tonumber(ARGV[2])
if redis.call('ZSCORE', KEYS[1], id) then return 0 end
local op, target = ARGV[4], KEYS[2]
if op == 'rating' then
  local games = tonumber(redis.call('HGET', target, 'games') or '0')
  if games ~= tonumber(ARGV[5]) then return -1 end
  redis.call('HSET', target, 'rating', ARGV[6], 'rd', ARGV[7], 'volatility', ARGV[8],
    'games', ARGV[9], 'last_at', ARGV[10])
elseif op == 'zadd' then
  redis.call('ZADD', target, ARGV[6], ARGV[5])
elseif op == 'zset' then
  for i = 5, #ARGV, 2 do
    if ARGV[i + 1] == '' then redis.call('ZREM', target, ARGV[i])
    else redis.call('ZADD', target, ARGV[i + 1], ARGV[i]) end
  end
elseif op == 'push' then
  redis.call('LPUSH', target, ARGV[5])
  redis.call('LTRIM', target, 0, tonumber(ARGV[6]) - 1)
elseif op == 'stats' then
  redis.call('HINCRBY', target, 'races', 1)
  if ARGV[5] == '1' then
    redis.call('HINCRBY', target, 'wins', 1)
    local best = redis.call('HGET', target, 'best_ms')
    if ARGV[6] ~= '' and (not best or tonumber(best) > tonumber(ARGV[6])) then
      redis.call('HSET', target, 'best_ms', ARGV[6])
    end
  end
elseif op == 'zincrby' then
  for i = 5, #ARGV, 2 do redis.call('ZINCRBY', target, ARGV[i + 1], ARGV[i]) end
elseif op == 'streak' then
  local day = tonumber(ARGV[5])
  local last = tonumber(redis.call('HGET', target, 'last') or '-10')
  local current = 1
  if last == day - 1 then current = tonumber(redis.call('HGET', target, 'current') or '0') + 1 end
  if last ~= day then
    local best = math.max(current, tonumber(redis.call('HGET', target, 'best') or '0'))
    redis.call('HSET', target, 'last', day, 'current', current, 'best', best)
  end
else
  return redis.error_reply('apply_once: unknown op ' .. op)
end
redis.call('ZADD', KEYS[1], now, id)
local keep = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - keep)
-- The marker never outlives its key for long (a guest's keys expire).
local left = redis.call('PTTL', target)
if left > 0 and left < keep then keep = math.max(left, 600000) end
redis.call('PEXPIRE', KEYS[1], keep)
return 1
""",
)

MATCH: Final = LuaScript(
    "match",
    keys=(
        "queue (list, oldest first)",
        "leases (sorted set: player -> lease end ms)",
        "paired (sorted set: player -> ms paired, the last minute's)",
    ),
    argv=("player id", "now ms", "lease end ms", "ms a pairing is kept in paired"),
    answers="the waiting player paired with this one, or false after queueing this one (or "
    "renewing its lease). A waiting player whose lease ran out (their node stopped renewing "
    "it: it died) is dropped, not paired. The one paired is kept in paired for a while, "
    "so that the node keeping them waiting tells a pairing from a cancel.",
    source="""
local now = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[4]))
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  return false
end
while true do
  local other = redis.call('LPOP', KEYS[1])
  if not other then break end
  local lease = redis.call('ZSCORE', KEYS[2], other)
  redis.call('ZREM', KEYS[2], other)
  if lease and tonumber(lease) >= now and other ~= ARGV[1] then
    redis.call('ZADD', KEYS[3], now, other)
    return other
  end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return false
""",
)

MATCH_RATED: Final = LuaScript(
    "match_rated",
    keys=(
        "pool (sorted set: player -> rating)",
        "since (hash: player -> ms)",
        "leases (sorted set)",
        "paired (sorted set: player -> ms paired, the last minute's)",
    ),
    argv=(
        "player id",
        "rating",
        "now ms",
        "lease end ms",
        "gap at first",
        "gap added per second",
        "ms after which any gap goes",
        "join (queue the player when not in the pool) | stay (only if still in it)",
        "ms a pairing is kept in paired",
    ),
    answers="the waiting player paired with this one, or false (this one waits, its lease renewed). "
    "Two players pair when their ratings differ by no more than the gap allowed for the longer "
    "wait of the two; of those, the nearest in rating. A player whose lease ran out is dropped. "
    "With ``stay``, a player no longer in the pool is not put back: 1 when a pairing took them "
    "out in the last minute, 2 when they left otherwise (cancelled, or dropped).",
    source="""
local me, rating, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local base, widen, anyone = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[9]))
if not redis.call('ZSCORE', KEYS[1], me) then
  if ARGV[8] == 'stay' then
    if redis.call('ZSCORE', KEYS[4], me) then return 1 end
    return 2
  end
  redis.call('ZADD', KEYS[1], rating, me)
  redis.call('HSET', KEYS[2], me, now)
  redis.call('ZREM', KEYS[4], me)
end
redis.call('ZADD', KEYS[3], ARGV[4], me)
local my_wait = now - tonumber(redis.call('HGET', KEYS[2], me) or now)
local best, best_gap = nil, nil
local pool = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #pool, 2 do
  local other = pool[i]
  if other ~= me then
    local lease = tonumber(redis.call('ZSCORE', KEYS[3], other) or '0')
    if lease < now then
      redis.call('ZREM', KEYS[1], other)
      redis.call('HDEL', KEYS[2], other)
      redis.call('ZREM', KEYS[3], other)
    else
      local wait = math.max(my_wait, now - tonumber(redis.call('HGET', KEYS[2], other) or now))
      local gap = math.abs(tonumber(pool[i + 1]) - rating)
      if (wait >= anyone or gap <= base + widen * wait / 1000) and (not best or gap < best_gap) then
        best, best_gap = other, gap
      end
    end
  end
end
if not best then return false end
for _, player in ipairs({me, best}) do
  redis.call('ZREM', KEYS[1], player)
  redis.call('HDEL', KEYS[2], player)
  redis.call('ZREM', KEYS[3], player)
  redis.call('ZADD', KEYS[4], now, player)
end
redis.call('PEXPIRE', KEYS[4], ARGV[9])
return best
""",
)

#: Lua that counts a rematch's answers and decides it: ``start`` (someone besides the
#: offerer accepted: the status becomes ``starting``), else ``declined`` (every answer
#: is in) or ``expired`` (``final``, the wait is over); ``ok`` while answers are pending.
_REMATCH_DECIDE: Final = """
local function decide(final)
  local fields = redis.call('HGETALL', KEYS[1])
  local pending, accepted = 0, 0
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 2) == 'a:' then
      if fields[i + 1] == 'pending' then pending = pending + 1 end
      if fields[i + 1] == 'accepted' then accepted = accepted + 1 end
    end
  end
  if pending > 0 and not final then return 'ok' end
  if accepted > 0 then
    redis.call('HSET', KEYS[1], 'status', 'starting')
    return 'start'
  end
  local ended = 'declined'
  if pending > 0 then ended = 'expired' end
  redis.call('HSET', KEYS[1], 'status', ended)
  return ended
end
"""

REMATCH_OFFER: Final = LuaScript(
    "rematch_offer",
    keys=("rematch",),
    argv=(
        "offerer",
        "now",
        "expires_at",
        "ttl seconds (0: none)",
        "the offerer's seed share commitment ('': none)",
        "racer ids...",
    ),
    answers="ok | exists. A new offer replaces one that was declined, expired or failed "
    "(or is open past its time); never one that is open or started.",
    source="""
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'starting' or status == 'started' then return 'exists' end
if status == 'open' and tonumber(ARGV[2]) <= tonumber(redis.call('HGET', KEYS[1], 'expires_at')) then
  return 'exists'
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'offered_by', ARGV[1], 'status', 'open', 'expires_at', ARGV[3])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'c:' .. ARGV[1], ARGV[5]) end
for i = 6, #ARGV do
  local answer = 'pending'
  if ARGV[i] == ARGV[1] then answer = 'offered' end
  redis.call('HSET', KEYS[1], 'a:' .. ARGV[i], answer)
end
if tonumber(ARGV[4]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[4]) end
return 'ok'
""",
)

REMATCH_ANSWER: Final = LuaScript(
    "rematch_answer",
    keys=("rematch",),
    argv=("player id", "'accepted' or 'declined'", "now", "the racer's seed share commitment ('': none)"),
    answers="ok | start | declined | none (no offer) | closed (decided) | late (past its "
    "time) | not_invited | answered. The last answer decides the offer.",
    source=_REMATCH_DECIDE
    + """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'none' end
if status ~= 'open' then return 'closed' end
if tonumber(ARGV[3]) > tonumber(redis.call('HGET', KEYS[1], 'expires_at')) then return 'late' end
local current = redis.call('HGET', KEYS[1], 'a:' .. ARGV[1])
if not current then return 'not_invited' end
if current ~= 'pending' then return 'answered' end
redis.call('HSET', KEYS[1], 'a:' .. ARGV[1], ARGV[2])
if ARGV[2] == 'accepted' and ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'c:' .. ARGV[1], ARGV[4]) end
return decide(false)
""",
)

REMATCH_EXPIRE: Final = LuaScript(
    "rematch_expire",
    keys=("rematch",),
    argv=("now", "ms a start may take past the wait", "the reason a start that took longer failed"),
    answers="start | expired | declined | no (not open, or not yet time) | starting (a start "
    "under way) | failed (a start stuck past its time: its node failed midway). The wait "
    "is over: those who accepted race.",
    source=_REMATCH_DECIDE
    + """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'starting' then
  if tonumber(ARGV[1]) < tonumber(redis.call('HGET', KEYS[1], 'expires_at')) + tonumber(ARGV[2]) then
    return 'starting'
  end
  redis.call('HSET', KEYS[1], 'status', 'failed', 'reason', ARGV[3])
  return 'failed'
end
if status ~= 'open' then return 'no' end
if tonumber(ARGV[1]) < tonumber(redis.call('HGET', KEYS[1], 'expires_at')) then return 'no' end
return decide(true)
""",
)

REMATCH_WITHDRAW: Final = LuaScript(
    "rematch_withdraw",
    keys=("rematch",),
    argv=("reason",),
    answers="ok | no (not open). The offerer left: the offer fails with the reason given.",
    source="""
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return 'no' end
redis.call('HSET', KEYS[1], 'status', 'failed', 'reason', ARGV[1])
return 'ok'
""",
)

REGISTER: Final = LuaScript(
    "register",
    keys=("player",),
    argv=("username", "password hash"),
    answers="ok | no_player | registered. A guest becomes an account (its name is claimed "
    "and its token listed before this call).",
    source="""
if redis.call('EXISTS', KEYS[1]) == 0 then return 'no_player' end
if redis.call('HEXISTS', KEYS[1], 'username') == 1 then return 'registered' end
redis.call('HSET', KEYS[1], 'username', ARGV[1], 'name', ARGV[1], 'password', ARGV[2])
return 'ok'
""",
)

RENAME: Final = LuaScript(
    "rename",
    keys=("player",),
    argv=("name",),
    answers="ok | no_player | registered. A guest goes by a new name; an account keeps its "
    "username (checked here, as a register may have just made the guest one).",
    source="""
if redis.call('EXISTS', KEYS[1]) == 0 then return 'no_player' end
if redis.call('HEXISTS', KEYS[1], 'username') == 1 then return 'registered' end
redis.call('HSET', KEYS[1], 'name', ARGV[1])
return 'ok'
""",
)

#: Lua for counters of limited tries, each living its seconds from its first count:
#: ``lapse`` (the seconds until a full one lapses), ``count`` and ``uncount`` (one back;
#: at zero it is deleted, and one that lapsed stays gone), both keeping the counter's life.
_COUNTERS: Final = """
local function lapse(key, seconds)
  local left = redis.call('PTTL', key)
  if left > 0 then return math.ceil(left / 1000) end
  redis.call('EXPIRE', key, seconds)  -- a counter without a life must not refuse forever
  return tonumber(seconds)
end
local function count(key, seconds)
  redis.call('INCR', key)
  if redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, seconds) end
end
local function uncount(key)
  if tonumber(redis.call('GET', key) or '0') <= 1 then
    redis.call('DEL', key)
    return 0
  end
  return redis.call('DECR', key)
end
"""

COUNT: Final = LuaScript(
    "count",
    keys=("counter",),
    argv=("the most it may hold", "seconds it lasts from its first count"),
    answers="0 when counted; else the seconds until the counter lapses (it holds the most "
    "already, and this one is not counted). Counting never extends the counter's life.",
    source=_COUNTERS
    + """
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then return lapse(KEYS[1], ARGV[2]) end
count(KEYS[1], ARGV[2])
return 0
""",
)

UNCOUNT: Final = LuaScript(
    "uncount",
    keys=("counter", "..."),
    argv=(),
    answers="the counts left, one per counter. Gives back one count of :data:`COUNT` (or "
    ":data:`GUESS`) to each counter (its life is kept); a counter that lapsed stays gone, and "
    "one back at zero is deleted.",
    source=_COUNTERS
    + """
local left = {}
for i, key in ipairs(KEYS) do left[i] = uncount(key) end
return left
""",
)

GUESS: Final = LuaScript(
    "guess",
    keys=("pair counter", "account counter", "known addresses"),
    argv=(
        "the most the pair counter may hold",
        "the most the account counter may hold before addresses not known are refused (0: no bound)",
        "seconds a counter lasts from its first count",
        "the client address",
        "the oldest ms of a login that still makes an address known",
    ),
    answers="``['', 0]`` when counted (in both counters); else the limit that refuses it "
    "(``account_address``: the pair counter holds the most; ``account``: the account counter "
    "does and the address is not known) and the seconds until that counter lapses; a "
    "refused guess is not counted. Counting never extends a counter's life.",
    source=_COUNTERS
    + """
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then
  return {'account_address', lapse(KEYS[1], ARGV[3])}
end
local most = tonumber(ARGV[2])
if most > 0 and tonumber(redis.call('GET', KEYS[2]) or '0') >= most then
  local seen = redis.call('ZSCORE', KEYS[3], ARGV[4])
  if not seen or tonumber(seen) < tonumber(ARGV[5]) then return {'account', lapse(KEYS[2], ARGV[3])} end
end
count(KEYS[1], ARGV[3])
count(KEYS[2], ARGV[3])
return {'', 0}
""",
)

#: Lua that makes ``address`` (ARGV[1]) known to an account from now (ARGV[2]) for
#: ARGV[3] ms, keeping the latest ARGV[4] addresses of the known set ``known``.
_REMEMBER_ADDRESS: Final = """
local function remember(known)
  local now = tonumber(ARGV[2])
  redis.call('ZADD', known, now, ARGV[1])
  redis.call('ZREMRANGEBYSCORE', known, '-inf', '(' .. (now - tonumber(ARGV[3])))
  redis.call('ZREMRANGEBYRANK', known, 0, -(tonumber(ARGV[4]) + 1))
  redis.call('PEXPIRE', known, ARGV[3])
  return redis.call('ZCARD', known)
end
"""

_ADDRESS_ARGV: Final = (
    "the client address",
    "now (ms)",
    "ms an address stays known",
    "the most addresses kept",
)

LOGGED_IN: Final = LuaScript(
    "logged_in",
    keys=("pair counter", "account counter", "known addresses"),
    argv=_ADDRESS_ARGV,
    answers="the addresses known. A right password from the address: its pair counter is "
    "cleared, the account counter gets back the count :data:`GUESS` made (a new account has "
    "none), and the address is known from now on, among the latest ones only (each known "
    "for its time from its latest login; the set lives as long as its newest).",
    source=_COUNTERS
    + _REMEMBER_ADDRESS
    + """
redis.call('DEL', KEYS[1])
uncount(KEYS[2])
return remember(KEYS[3])
""",
)

KNOWN_AT: Final = LuaScript(
    "known_at",
    keys=("known addresses",),
    argv=_ADDRESS_ARGV,
    answers="the addresses known. A sign-in resumed with the account's token from the "
    "address: it is known from now on, as after a login (no counter changes: no password "
    "was checked).",
    source=_REMEMBER_ADDRESS + "\nreturn remember(KEYS[1])\n",
)

UNLIST: Final = LuaScript(
    "unlist",
    keys=("leaderboard",),
    argv=("player id", "the score read", "..."),
    answers="how many players were removed: each only while their score is still the one "
    "read, so a rated race that ended since the read (a new score) keeps its player listed.",
    source="""
local removed = 0
for i = 1, #ARGV, 2 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) == tonumber(ARGV[i + 1]) then
    removed = removed + redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return removed
""",
)

WATCHERS: Final = LuaScript(
    "watchers",
    keys=("watchers",),
    argv=("node id", "this node's spectators", "now", "valid for (ms)", "channel", "race id"),
    answers="the race's spectators on every node. Each node's entry is "
    "``<count>:<valid until ms>``; entries past their time (a node that died) are dropped, "
    "and count in the total before (it was published with them). "
    "A changed total is published to the race's channel as a ``spectators`` event, its "
    'envelope also holding every node\'s count (``"n": {node id: count}``): a node adds '
    "its own spectators of the moment to the others' instead of waiting for its own write.",
    source="""
local now = tonumber(ARGV[3])
local before, total = 0, 0
local nodes = {}
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local count, until_ms = string.match(entries[i + 1], '^(%d+):(%d+)$')
  if count then before = before + tonumber(count) end
  if count and tonumber(until_ms) > now then
    if entries[i] ~= ARGV[1] then
      total = total + tonumber(count)
      nodes[entries[i]] = tonumber(count)
    end
  else
    redis.call('HDEL', KEYS[1], entries[i])
  end
end
if tonumber(ARGV[2]) > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. (now + tonumber(ARGV[4])))
  total = total + tonumber(ARGV[2])
  nodes[ARGV[1]] = tonumber(ARGV[2])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
if total ~= before then
  local counts = '{}'
  if next(nodes) ~= nil then counts = cjson.encode(nodes) end
  redis.call('PUBLISH', ARGV[5], '{"k":"b","skip":"","n":' .. counts ..
    ',"msg":{"type":"spectators","race_id":' .. cjson.encode(ARGV[6]) .. ',"count":' .. total .. '}}')
end
return total
""",
)

DAILY_ATTEMPT_ENDS: Final = LuaScript(
    "daily_attempt_ends",
    keys=("the day's unended attempts", "the day's last end"),
    argv=("race id", "ends_at"),
    answers="the day's last end after the call. The attempt is kept among the day's unended ones "
    "with the later of its kept ends_at and this one, and the day's last end becomes this ends_at "
    "when it is later: both in one step (the day's slot), written before the attempt's countdown "
    "or start, so no attempt ever runs past the day's last end.",
    source="""
local ends_at = tonumber(ARGV[2])
local kept = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not kept or tonumber(kept) < ends_at then redis.call('ZADD', KEYS[1], ends_at, ARGV[1]) end
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if last < ends_at then
  redis.call('SET', KEYS[2], ARGV[2])
  last = ends_at
end
return last
""",
)

TAKE_DUE: Final = LuaScript(
    "take_due",
    keys=("the due list",),
    argv=("now", "how many at most", "looked at again after (ms)"),
    answers="the members due by ``now`` (at most that many), each put off until ``now`` plus "
    "the delay in the same step: only the node that takes one looks at it, and one it never "
    "drops (its node lost Redis or died midway) is due again after the delay.",
    source="""
local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), member)
end
return due
""",
)

ALL: Final = (
    JOIN,
    READY,
    LEAVE,
    START,
    CLAIM_RACING,
    RELEASE_RACING,
    GO,
    VOID,
    MOVE,
    CONFIRM,
    FINISH,
    BEGIN_END,
    END_PLAN,
    END_FINISH,
    APPLY_ONCE,
    MATCH,
    MATCH_RATED,
    REMATCH_OFFER,
    REMATCH_ANSWER,
    REMATCH_EXPIRE,
    REMATCH_WITHDRAW,
    REGISTER,
    RENAME,
    COUNT,
    UNCOUNT,
    GUESS,
    LOGGED_IN,
    KNOWN_AT,
    UNLIST,
    WATCHERS,
    DAILY_ATTEMPT_ENDS,
    TAKE_DUE,
)
