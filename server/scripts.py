"""The Lua scripts of the store. Each touches the keys of one race only (one hash tag).

Only :mod:`server.store` uses these; every key they touch is passed in ``KEYS``.
"""

from __future__ import annotations

from typing import Final

#: KEYS: meta, racers. ARGV: player id, seat JSON.
JOIN: Final = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status ~= 'open' then return 'not_open' end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'already' end
local seats = tonumber(redis.call('HGET', KEYS[1], 'seats'))
if redis.call('HLEN', KEYS[2]) >= seats then return 'full' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 'ok'
"""

#: KEYS: meta, racers. ARGV: player id, '1' or '0'.
#: Returns 'ok', or 'all_ready' when every seat is taken by a ready racer.
READY: Final = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status ~= 'open' then return 'not_open' end
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 'not_a_racer' end
local seat = cjson.decode(raw)
seat['ready'] = (ARGV[2] == '1')
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(seat))
local all = redis.call('HVALS', KEYS[2])
if #all < 2 then return 'ok' end
for _, value in ipairs(all) do
  if not cjson.decode(value)['ready'] then return 'ok' end
end
return 'all_ready'
"""

#: KEYS: meta, racers. ARGV: player id. Returns 'ok', 'cancelled' (race now empty) or an error.
LEAVE: Final = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status ~= 'open' then return 'not_open' end
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 'not_a_racer' end
if redis.call('HLEN', KEYS[2]) == 0 then
  redis.call('HSET', KEYS[1], 'status', 'cancelled')
  return 'cancelled'
end
if redis.call('HGET', KEYS[1], 'creator') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'creator', redis.call('HKEYS', KEYS[2])[1])
end
return 'ok'
"""

#: KEYS: meta, racers, board of each racer (in ARGV order).
#: ARGV: starts_at, ends_at, position JSON, initial score, event JSON, channel, player ids...
#: Moves the race from open to countdown and deals every board, if the seats are still
#: exactly the given players.
START: Final = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'not_found' end
if status ~= 'open' then return 'not_open' end
local count = #ARGV - 6
if redis.call('HLEN', KEYS[2]) ~= count then return 'changed' end
for i = 1, count do
  if redis.call('HEXISTS', KEYS[2], ARGV[6 + i]) == 0 then return 'changed' end
end
redis.call('HSET', KEYS[1], 'status', 'countdown', 'starts_at', ARGV[1], 'ends_at', ARGV[2],
  'racer_count', count, 'finished_count', 0)
for i = 1, count do
  redis.call('HSET', KEYS[2 + i], 'position', ARGV[3], 'seq', 0, 'move_count', 0,
    'score', ARGV[4], 'won', 0, 'finished', 0, 'score_at', ARGV[1], 'finished_at', 0)
end
redis.call('PUBLISH', ARGV[6], ARGV[5])
return 'ok'
"""

#: KEYS: meta. ARGV: now, event JSON, channel. Countdown over: the race runs.
GO: Final = """
if redis.call('HGET', KEYS[1], 'status') ~= 'countdown' then return 0 end
if tonumber(ARGV[1]) < tonumber(redis.call('HGET', KEYS[1], 'starts_at')) then return 0 end
redis.call('HSET', KEYS[1], 'status', 'running')
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
"""

#: KEYS: meta, board, log, nodes. ARGV: player id, seq, move, position JSON, move_count,
#: score, won ('1'/'0'), now, result JSON (kept as field 'ack' to answer a resent seq),
#: event JSON, channel, the calling node's id. The event is published only when a node
#: other than the caller follows the race: the caller delivers it to its own sessions.
#: The compare-and-set of one move. Returns {'ok', finished_count, racer_count},
#: {'dup'}, {'seq', current seq}, or {error}.
MOVE: Final = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found'} end
if status == 'countdown' then return {'not_started'} end
if status ~= 'running' then return {'over'} end
local now = tonumber(ARGV[8])
if now > tonumber(redis.call('HGET', KEYS[1], 'ends_at')) then return {'over'} end
local seq = redis.call('HGET', KEYS[2], 'seq')
if not seq then return {'not_a_racer'} end
local new_seq = tonumber(ARGV[2])
seq = tonumber(seq)
if new_seq == seq then return {'dup'} end
if new_seq ~= seq + 1 then return {'seq', tostring(seq)} end
if redis.call('HGET', KEYS[2], 'finished') == '1' then return {'finished'} end
local old_score = redis.call('HGET', KEYS[2], 'score')
redis.call('HSET', KEYS[2], 'seq', new_seq, 'position', ARGV[4], 'move_count', ARGV[5],
  'score', ARGV[6], 'ack', ARGV[9])
if old_score ~= ARGV[6] then redis.call('HSET', KEYS[2], 'score_at', ARGV[8]) end
local finished = redis.call('HGET', KEYS[1], 'finished_count')
if ARGV[7] == '1' then
  redis.call('HSET', KEYS[2], 'won', 1, 'finished', 1, 'finished_at', ARGV[8])
  finished = redis.call('HINCRBY', KEYS[1], 'finished_count', 1)
end
redis.call('XADD', KEYS[3], '*', 'player', ARGV[1], 'seq', ARGV[2], 'move', ARGV[3],
  'at', ARGV[8])
if redis.call('SCARD', KEYS[4]) > redis.call('SISMEMBER', KEYS[4], ARGV[12]) then
  redis.call('PUBLISH', ARGV[11], ARGV[10])
end
return {'ok', tostring(finished), redis.call('HGET', KEYS[1], 'racer_count')}
"""

#: KEYS: meta, board. ARGV: now, event JSON, channel.
#: A racer gives up. Returns {'ok', finished_count, racer_count} or {error}.
FINISH: Final = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found'} end
if status == 'countdown' then return {'not_started'} end
if status ~= 'running' then return {'over'} end
local done = redis.call('HGET', KEYS[2], 'finished')
if not done then return {'not_a_racer'} end
if done == '1' then return {'finished'} end
redis.call('HSET', KEYS[2], 'finished', 1, 'finished_at', ARGV[1])
local finished = redis.call('HINCRBY', KEYS[1], 'finished_count', 1)
redis.call('PUBLISH', ARGV[3], ARGV[2])
return {'ok', tostring(finished), redis.call('HGET', KEYS[1], 'racer_count')}
"""

#: KEYS: meta. ARGV: now. Stops accepting moves: running (or countdown) -> ending.
#: Returns 1 when the caller should complete the end (also after a crash mid-end).
BEGIN_END: Final = """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'running' or status == 'countdown' then
  redis.call('HSET', KEYS[1], 'status', 'ending', 'ended_at', ARGV[1])
  return 1
end
if status == 'ending' then return 1 end
return 0
"""

#: KEYS: meta, summary. ARGV: summary JSON, event JSON, channel.
COMPLETE_END: Final = """
if redis.call('HGET', KEYS[1], 'status') ~= 'ending' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'finished')
redis.call('SET', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
"""

#: KEYS: queue (list, oldest first), leases (sorted set: player -> lease end ms).
#: ARGV: player id, now ms, lease end ms. Returns the waiting player paired with this
#: one, or false after queueing this one (or renewing its lease). A waiting player
#: whose lease ran out (their node stopped renewing it: it died) is dropped, not paired.
MATCH: Final = """
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  return false
end
local now = tonumber(ARGV[2])
while true do
  local other = redis.call('LPOP', KEYS[1])
  if not other then break end
  local lease = redis.call('ZSCORE', KEYS[2], other)
  redis.call('ZREM', KEYS[2], other)
  if lease and tonumber(lease) >= now and other ~= ARGV[1] then return other end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return false
"""
