# Asks Ruby dalli (Debian ruby-dalli) where keys go: the client's own server
# parsing, key preparation (KeyManager#validate_key) and Dalli::Ring. The
# ring's liveness check (which would connect) is skipped: the placement is
# Ring#server_for_hash_key of Ring#hash_for of the validated key.
#
# Usage: ruby dalli_peer.rb CASE_DIR...
# Each CASE_DIR has `servers` (one server string per line, as given to
# Dalli::Client.new) and `keys` (one key per line, read as UTF-8 strings);
# the peer writes `out` (each key's server index) and `dump` (the continuum,
# "value index" in ring order).
require 'dalli'

ARGV.each do |dir|
  servers = File.read(File.join(dir, 'servers')).split("\n")
  client = Dalli::Client.new(servers)
  ring = client.send(:ring)
  keys = client.instance_variable_get(:@key_manager)
  index = {}
  ring.servers.each_with_index { |server, i| index[server.object_id] = i }
  File.open(File.join(dir, 'dump'), 'w') do |dump|
    ring.continuum.each { |entry| dump.puts "#{entry.value} #{index.fetch(entry.server.object_id)}" }
  end
  File.open(File.join(dir, 'out'), 'w') do |out|
    File.binread(File.join(dir, 'keys')).split("\n").each do |raw|
      key = keys.validate_key(raw.force_encoding('UTF-8'))
      server = ring.send(:server_for_hash_key, ring.send(:hash_for, key))
      out.puts index.fetch(server.object_id)
    end
  end
end
puts "dalli #{Dalli::VERSION}"
