# Asks Perl Cache::Memcached (Debian libcache-memcached-perl) where keys go:
# a client built from the servers as its users write them ("host:port", or
# ["host:port", weight]) and its own get_sock on each key. sock_to_host is
# replaced so that nothing connects: a server listed in `down` refuses, the
# others answer with their own name, so get_sock's rehashing decides where a
# key goes when one is down.
#
# Usage: perl cache_memcached_peer.pl CASE_DIR...
# Each CASE_DIR has `servers` (ADDRESS or ADDRESS<TAB>WEIGHT per line),
# `keys` (one key per line, bytes) and optionally `down` (server indices).
# The peer writes `out` (each key's server index, -1 when get_sock gives up)
# and an empty `dump`.
use strict;
use warnings;
use Cache::Memcached;

my %down_hosts;
{
    no warnings 'redefine';
    *Cache::Memcached::sock_to_host = sub {
        my ($self, $host) = @_;
        my $name = ref $host ? $host->[0] : $host;
        return $down_hosts{$name} ? undef : $name;
    };
}

sub slurp {
    my ($path) = @_;
    open(my $fh, '<:raw', $path) or die "$path: $!";
    local $/;
    my $text = <$fh>;
    close $fh;
    return $text;
}

for my $dir (@ARGV) {
    my @servers;
    my %position;
    my $i = 0;
    for my $line (split /\n/, slurp("$dir/servers")) {
        next if $line eq '';
        my ($address, $weight) = split /\t/, $line;
        push @servers, defined $weight ? [$address, $weight] : $address;
        $position{$address} //= $i;
        $i++;
    }
    %down_hosts = ();
    if (-e "$dir/down") {
        for my $index (split /\s+/, slurp("$dir/down")) {
            next if $index eq '';
            my $s = $servers[$index];
            $down_hosts{ref $s ? $s->[0] : $s} = 1;
        }
    }
    my $client = Cache::Memcached->new({ servers => \@servers });
    open(my $out, '>', "$dir/out") or die "$dir/out: $!";
    my @keys = split /\n/, slurp("$dir/keys"), -1;
    pop @keys;    # after the last newline
    for my $key (@keys) {
        my $host = $client->get_sock($key);
        print $out (defined $host ? $position{$host} : -1), "\n";
    }
    close $out;
    open(my $dump, '>', "$dir/dump") or die;
    close $dump;
}
print "Cache::Memcached $Cache::Memcached::VERSION\n";
