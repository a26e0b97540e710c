# Stores keys through Perl Cache::Memcached::Fast (Debian
# libcache-memcached-fast-perl) with ketama_points => 150 (or the number in
# CASE_DIR/points), so that the
# memcached servers on 127.0.0.1 show where its XS dispatch put each key.
#
# Usage: perl memcached_fast_peer.pl CASE_DIR...
# Each CASE_DIR has `servers` (lines `ADDRESS` or `ADDRESS<TAB>WEIGHT`) and
# `keys` (one key per line, bytes as they are). Every key is set to "1";
# the script fails unless every set succeeded.
use strict;
use warnings;
use Cache::Memcached::Fast;

for my $dir (@ARGV) {
    open my $sf, '<', "$dir/servers" or die "$dir/servers: $!";
    my @servers;
    while (my $line = <$sf>) {
        chomp $line;
        next if $line eq '';
        my ($address, $weight) = split /\t/, $line;
        push @servers, { address => $address, weight => $weight // 1 };
    }
    close $sf;
    open my $kf, '<:raw', "$dir/keys" or die "$dir/keys: $!";
    my @keys;
    while (my $key = <$kf>) {
        chomp $key;
        push @keys, $key;
    }
    close $kf;
    my $points = 150;
    if (open my $pf, '<', "$dir/points") {
        $points = <$pf>;
        chomp $points;
        close $pf;
    }
    my $memd = Cache::Memcached::Fast->new({
        servers         => \@servers,
        ketama_points   => $points,
        connect_timeout => 5,
        io_timeout      => 30,
        max_failures    => 0,
    });
    my $stored = 0;
    while (my @batch = splice @keys, 0, 500) {
        my @results = $memd->set_multi(map { [$_, '1'] } @batch);
        for my $i (0 .. $#batch) {
            die "set of key '$batch[$i]' failed\n" unless $results[$i];
            $stored++;
        }
    }
    print "$dir: $stored keys stored\n";
}
print "Cache::Memcached::Fast $Cache::Memcached::Fast::VERSION\n";
