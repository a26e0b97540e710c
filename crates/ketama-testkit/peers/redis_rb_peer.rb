# Asks redis-rb (Debian ruby-redis) where keys go: a Redis::Distributed of
# the node configurations its users write (a URL string, or a Hash of
# :host/:port, or a URL with an :id), and Redis::Distributed#node_for on
# each key, the node every command on that key is sent to. Redis.new does
# not connect, so no server is needed.
#
# Usage: ruby redis_rb_peer.rb CASE_DIR...
# Each CASE_DIR has `servers` (one node per line: `url URL`, `host HOST
# [PORT]` or `id ID URL`) and `keys` (one key per line in hex; a key that is
# valid UTF-8 is given as a UTF-8 string, any other as a binary string).
# The peer writes `out` (each key's node index) and `dump` (the ring,
# "point index" in ring order).
require 'redis'
require 'redis/distributed'

ARGV.each do |dir|
  configs = File.read(File.join(dir, 'servers')).split("\n").map do |line|
    kind, *rest = line.split(' ')
    case kind
    when 'url' then rest[0]
    when 'host' then rest[1] ? { host: rest[0], port: rest[1].to_i } : { host: rest[0] }
    when 'id' then { id: rest[0], url: rest[1] }
    else raise "unknown node line #{line}"
    end
  end
  dist = Redis::Distributed.new(configs)
  index = {}
  dist.nodes.each_with_index { |node, i| index[node.object_id] = i }
  File.open(File.join(dir, 'out'), 'w') do |out|
    File.read(File.join(dir, 'keys')).split("\n", -1)[0...-1].each do |hex|
      key = [hex].pack('H*')
      utf8 = key.dup.force_encoding('UTF-8')
      key = utf8 if utf8.valid_encoding?
      out.puts index.fetch(dist.node_for(key).object_id)
    end
  end
  File.open(File.join(dir, 'dump'), 'w') do |dump|
    dist.ring.sorted_keys.uniq.each do |point|
      dump.puts "#{point} #{index.fetch(dist.ring.ring[point].object_id)}"
    end
  end
end
puts "redis-rb #{Redis::VERSION}"
