// GEO commands: through StackExchange.Redis over RESP2 and RESP3, and through raw RESP where the reply's bytes matter
// (coordinates as bulk strings or RESP3 doubles, distances with 4 decimals, nulls); Redis 7.2's error texts and the
// order in which they win; STORE / STOREDIST; geo keys as ordinary sorted sets; persistence through the AOF; and the
// algorithm pieces (GeoHash, FixedFormat, the partial quicksort) on their own. RedisGeoCompatTests compares the same
// commands with a real redis-server.
using Garnet.Options;
using Garnet.server.Commands;
using Garnet.server.Objects;
using StackExchange.Redis;

namespace Garnet.test;

[TestFixture]
public class GeoCommandTests : ServerFixture
{
    // Redis's documentation example: Palermo and Catania, and what Redis 7.2 answers about them.
    private const string PalermoScore = "3479099956230698", CataniaScore = "3479447370796909";
    private const string PalermoLon = "13.36138933897018433", PalermoLat = "38.11555639549629859";
    private const string CataniaLon = "15.08726745843887329", CataniaLat = "37.50266842333162032";

    private RawResp Raw(int protocol = 2)
    {
        var c = new RawResp(_server.Port);
        if (protocol == 3) c.Run("HELLO", "3");
        return c;
    }

    private static void AddSicily(RawResp c, string key = "Sicily") =>
        Assert.That(c.RunText("GEOADD", key, "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"), Is.EqualTo(":2\r\n"));

    [Test]
    public void StackExchangeRedisRoundTrip([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = mux.GetDatabase();
        string key = "se:" + protocol;
        db.KeyDelete(key);
        Assert.That(db.GeoAdd(key, [new GeoEntry(13.361389, 38.115556, "Palermo"), new GeoEntry(15.087269, 37.502669, "Catania")]), Is.EqualTo(2));
        Assert.That(db.GeoAdd(key, 13.361389, 38.115556, "Palermo"), Is.False, "an update is not an add");

        var palermo = db.GeoPosition(key, "Palermo")!.Value;
        Assert.That(palermo.Longitude, Is.EqualTo(13.36138933897018433).Within(1e-14));
        Assert.That(palermo.Latitude, Is.EqualTo(38.11555639549629859).Within(1e-14));
        Assert.That(db.GeoPosition(key, "nope"), Is.Null);
        Assert.That(db.GeoDistance(key, "Palermo", "Catania"), Is.EqualTo(166274.1516));
        Assert.That(db.GeoDistance(key, "Palermo", "Catania", GeoUnit.Kilometers), Is.EqualTo(166.2742));
        Assert.That(db.GeoDistance(key, "Palermo", "Catania", GeoUnit.Miles), Is.EqualTo(103.3182));
        Assert.That(db.GeoDistance(key, "Palermo", "Catania", GeoUnit.Feet), Is.EqualTo(545518.8700));
        Assert.That(db.GeoDistance(key, "Palermo", "nope"), Is.Null);
        Assert.That(db.GeoHash(key, "Palermo"), Is.EqualTo("sqc8b49rny0"));
        Assert.That(db.GeoHash(key, ["Palermo", "nope", "Catania"]), Is.EqualTo(new[] { "sqc8b49rny0", null, "sqdtr74hyu0" }));

        // A geo key is a sorted set: ZRANGE shows Redis's scores.
        var scored = db.SortedSetRangeByRankWithScores(key);
        Assert.That(scored.Select(e => (string)e.Element!), Is.EqualTo(new[] { "Palermo", "Catania" }));
        Assert.That(scored.Select(e => e.Score), Is.EqualTo(new[] { 3479099956230698d, 3479447370796909d }));

        var around = db.GeoRadius(key, 15, 37, 200, GeoUnit.Kilometers, order: Order.Ascending,
            options: GeoRadiusOptions.WithDistance | GeoRadiusOptions.WithCoordinates | GeoRadiusOptions.WithGeoHash);
        Assert.That(around.Select(r => (string)r.Member!), Is.EqualTo(new[] { "Catania", "Palermo" }));
        Assert.That(around.Select(r => r.Distance), Is.EqualTo(new double?[] { 56.4413, 190.4424 }));
        Assert.That(around[0].Hash, Is.EqualTo(3479447370796909));
        Assert.That(around[0].Position!.Value.Longitude, Is.EqualTo(15.08726745843887329).Within(1e-14));

        var byMember = db.GeoRadius(key, "Palermo", 100, GeoUnit.Kilometers);
        Assert.That(byMember.Select(r => (string)r.Member!), Is.EqualTo(new[] { "Palermo" }));

        var box = db.GeoSearch(key, 15, 37, new GeoSearchBox(400, 400, GeoUnit.Kilometers), order: Order.Descending);
        Assert.That(box.Select(r => (string)r.Member!), Is.EqualTo(new[] { "Palermo", "Catania" }));
        var nearest = db.GeoSearch(key, "Catania", new GeoSearchCircle(500, GeoUnit.Kilometers), count: 1);
        Assert.That(nearest.Select(r => (string)r.Member!), Is.EqualTo(new[] { "Catania" }));
        var any = db.GeoSearch(key, 15, 37, new GeoSearchCircle(500, GeoUnit.Kilometers), count: 1, demandClosest: false);
        Assert.That(any, Has.Length.EqualTo(1));

        string dest = key + ":dest";
        Assert.That(db.GeoSearchAndStore(key, dest, 15, 37, new GeoSearchCircle(200, GeoUnit.Kilometers), storeDistances: true), Is.EqualTo(2));
        Assert.That(db.SortedSetScore(dest, "Catania"), Is.EqualTo(56.441257870158204).Within(1e-9), "STOREDIST stores the distance in the unit");
        Assert.That(db.GeoSearchAndStore(key, dest, "Palermo", new GeoSearchCircle(1, GeoUnit.Meters)), Is.EqualTo(1));
        Assert.That(db.SortedSetScore(dest, "Palermo"), Is.EqualTo(3479099956230698d));
        Assert.That(db.GeoSearchAndStore(key, dest, 0, 0, new GeoSearchCircle(1, GeoUnit.Meters)), Is.EqualTo(0));
        Assert.That(db.KeyExists(dest), Is.False, "an empty result deletes the destination");

        Assert.That(db.GeoRemove(key, "Palermo"), Is.True);
        db.StringSet(key + ":s", "x");
        var wrong = Assert.Throws<RedisServerException>(() => db.GeoPosition(key + ":s", "a"))!;
        Assert.That(wrong.Message, Does.StartWith("WRONGTYPE"));
    }

    [Test]
    public void ReplyBytes([Values(2, 3)] int protocol)
    {
        using var c = Raw(protocol);
        bool resp3 = protocol == 3;
        c.Run("DEL", "Sicily");
        AddSicily(c);
        string Coord(string v) => resp3 ? $",{v}\r\n" : $"${v.Length}\r\n{v}\r\n";
        string nullBulk = resp3 ? "_\r\n" : "$-1\r\n", nullArray = resp3 ? "_\r\n" : "*-1\r\n";

        Assert.That(c.RunText("GEOPOS", "Sicily", "Palermo", "nope"),
            Is.EqualTo($"*2\r\n*2\r\n{Coord(PalermoLon)}{Coord(PalermoLat)}{nullArray}"));
        Assert.That(c.RunText("GEOPOS", "nokey", "a"), Is.EqualTo($"*1\r\n{nullArray}"));
        Assert.That(c.RunText("GEOPOS", "Sicily"), Is.EqualTo("*0\r\n"));
        Assert.That(c.RunText("GEODIST", "Sicily", "Palermo", "Catania"), Is.EqualTo("$11\r\n166274.1516\r\n"), "a bulk string in both protocols");
        Assert.That(c.RunText("GEODIST", "Sicily", "Palermo", "Palermo", "km"), Is.EqualTo("$6\r\n0.0000\r\n"));
        Assert.That(c.RunText("GEODIST", "Sicily", "Palermo", "nope"), Is.EqualTo(nullBulk));
        Assert.That(c.RunText("GEODIST", "nokey", "a", "b"), Is.EqualTo(nullBulk));
        Assert.That(c.RunText("GEOHASH", "Sicily", "Palermo", "nope", "Catania"), Is.EqualTo($"*3\r\n$11\r\nsqc8b49rny0\r\n{nullBulk}$11\r\nsqdtr74hyu0\r\n"));
        Assert.That(c.RunText("GEOHASH", "nokey", "a", "b"), Is.EqualTo($"*2\r\n{nullBulk}{nullBulk}"));

        Assert.That(c.RunText("GEORADIUS", "Sicily", "15", "37", "200", "km"), Is.EqualTo("*2\r\n$7\r\nPalermo\r\n$7\r\nCatania\r\n"), "no order: as found");
        // Options come back as distance, hash, coordinates, whatever order they were asked in.
        Assert.That(c.RunText("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHCOORD", "WITHHASH", "WITHDIST", "ASC"), Is.EqualTo(
            "*2\r\n" +
            $"*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:{CataniaScore}\r\n*2\r\n{Coord(CataniaLon)}{Coord(CataniaLat)}" +
            $"*4\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n:{PalermoScore}\r\n*2\r\n{Coord(PalermoLon)}{Coord(PalermoLat)}"));
        Assert.That(c.RunText("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km", "WITHDIST", "DESC"),
            Is.EqualTo("*2\r\n*2\r\n$7\r\nCatania\r\n$8\r\n166.2742\r\n*2\r\n$7\r\nPalermo\r\n$6\r\n0.0000\r\n"));
        Assert.That(c.RunText("GEOSEARCH", "nokey", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"), Is.EqualTo("*0\r\n"));
        Assert.That(c.RunText("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"), Is.EqualTo("*0\r\n"));
        Assert.That(c.RunText("ZSCORE", "Sicily", "Palermo"), Is.EqualTo(resp3 ? $",{PalermoScore}\r\n" : $"$16\r\n{PalermoScore}\r\n"));
    }

    [Test]
    public void Errors()
    {
        using var c = Raw();
        AddSicily(c, "e");
        c.Run("SET", "str", "x");
        (string Command, string Error)[] cases =
        [
            ("GEOADD e 200 100 m", "ERR invalid longitude,latitude pair 200.000000,100.000000"),
            ("GEOADD e -0 100 m", "ERR invalid longitude,latitude pair -0.000000,100.000000"),
            ("GEOADD e 1 -85.06 m", "ERR invalid longitude,latitude pair 1.000000,-85.060000"),
            ("GEOADD e inf 0 m", "ERR invalid longitude,latitude pair inf,0.000000"),
            ("GEOADD e 0.0078125 99 m", "ERR invalid longitude,latitude pair 0.007812,99.000000"),
            ("GEOADD e abc 1 m", "ERR value is not a valid float"),
            ("GEOADD e 1 nan m", "ERR value is not a valid float"),
            ("GEOADD e 1 1 m 2", "ERR syntax error"),
            ("GEOADD e NX XX 1 1 m", "ERR syntax error"),
            ("GEOADD e GT 1 1 m", "ERR syntax error"),
            ("GEOADD e CH CH CH", "ERR syntax error"),
            ("GEOADD e 1 1", "ERR wrong number of arguments for 'geoadd' command"),
            ("GEOADD str 1 1 m", "WRONGTYPE Operation against a key holding the wrong kind of value"),
            ("GEODIST e Palermo Catania parsecs", "ERR unsupported unit provided. please use M, KM, FT, MI"),
            ("GEODIST e Palermo Catania km x", "ERR syntax error"),
            ("GEODIST str a b", "WRONGTYPE Operation against a key holding the wrong kind of value"),
            ("GEOPOS str a", "WRONGTYPE Operation against a key holding the wrong kind of value"),
            ("GEOHASH str a", "WRONGTYPE Operation against a key holding the wrong kind of value"),
            ("GEORADIUS str 200 100 1 km", "WRONGTYPE Operation against a key holding the wrong kind of value"),
            ("GEORADIUS e 200 100 1 km", "ERR invalid longitude,latitude pair 200.000000,100.000000"),
            ("GEORADIUS e 15 37 abc km", "ERR need numeric radius"),
            ("GEORADIUS e 15 37 -1 km", "ERR radius cannot be negative"),
            ("GEORADIUS e 15 37 1 parsecs", "ERR unsupported unit provided. please use M, KM, FT, MI"),
            ("GEORADIUS e 15 37 1 km BOGUS", "ERR syntax error"),
            ("GEORADIUS e 15 37 1 km COUNT", "ERR syntax error"),
            ("GEORADIUS e 15 37 1 km COUNT x", "ERR value is not an integer or out of range"),
            ("GEORADIUS e 15 37 1 km COUNT 0", "ERR COUNT must be > 0"),
            ("GEORADIUS e 15 37 1 km COUNT -3", "ERR COUNT must be > 0"),
            ("GEORADIUS e 15 37 1 km ANY", "ERR the ANY argument requires COUNT argument"),
            ("GEORADIUS e 15 37 1 km STORE d WITHDIST", "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"),
            ("GEORADIUS e 15 37 1 km WITHHASH STOREDIST d", "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"),
            ("GEORADIUS e 15 37 1 km STORE", "ERR syntax error"),
            ("GEORADIUS_RO e 15 37 1 km STORE d", "ERR syntax error"),
            ("GEORADIUSBYMEMBER e nope abc km", "ERR could not decode requested zset member"),
            ("GEORADIUSBYMEMBER e Palermo abc km", "ERR need numeric radius"),
            ("GEORADIUSBYMEMBER_RO e Palermo 1 km STOREDIST d", "ERR syntax error"),
            ("GEOSEARCH e FROMMEMBER nope BYRADIUS 1 km", "ERR could not decode requested zset member"),
            ("GEOSEARCH e BYRADIUS -1 km FROMMEMBER nope", "ERR radius cannot be negative"),
            ("GEOSEARCH e BYRADIUS 1 km WITHDIST ASC", "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH"),
            ("geosearch e FROMMEMBER Palermo WITHDIST WITHHASH ASC", "ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch"),
            ("GEOSEARCH e FROMMEMBER Palermo FROMLONLAT 1 1 BYRADIUS 1 km", "ERR syntax error"),
            ("GEOSEARCH e FROMLONLAT 1 1 BYRADIUS 1 km BYBOX 1 1 km", "ERR syntax error"),
            ("GEOSEARCH e FROMLONLAT 1 1 BYRADIUS 1 km STOREDIST", "ERR syntax error"),
            ("GEOSEARCH e FROMLONLAT 1 1 BYBOX x 1 km", "ERR need numeric width"),
            ("GEOSEARCH e FROMLONLAT 1 1 BYBOX 1 x km", "ERR need numeric height"),
            ("GEOSEARCH e FROMLONLAT 1 1 BYBOX 1 -1 km", "ERR height or width cannot be negative"),
            ("GEOSEARCH e FROMLONLAT 1 1 BYBOX 1 1 yards", "ERR unsupported unit provided. please use M, KM, FT, MI"),
            ("GEOSEARCH e FROMLONLAT 1 1 BYBOX 1 1 km COUNT 1 ANY STORE d", "ERR syntax error"),
            ("GEOSEARCH e FROMLONLAT 1 1", "ERR wrong number of arguments for 'geosearch' command"),
            ("GEOSEARCHSTORE d e FROMLONLAT 1 1 BYRADIUS 1 km WITHCOORD", "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"),
            ("GEOSEARCHSTORE d e FROMLONLAT 1 1 BYRADIUS 1 km STORE x", "ERR syntax error"),
            ("GEOSEARCHSTORE d str FROMLONLAT 1 1 BYRADIUS 1 km", "WRONGTYPE Operation against a key holding the wrong kind of value"),
        ];
        foreach (var (command, error) in cases)
            Assert.That(c.RunText(command.Split(' ')), Is.EqualTo("-" + error + "\r\n"), command);
        Assert.That(c.RunText("ZCARD", "e"), Is.EqualTo(":2\r\n"), "failed GEOADDs added nothing");
        // Without the key, GEORADIUSBYMEMBER looks at neither its member nor its radius; GEOSEARCH skips FROMMEMBER.
        Assert.That(c.RunText("GEORADIUSBYMEMBER", "nokey", "nope", "abc", "parsecs"), Is.EqualTo("*0\r\n"));
        Assert.That(c.RunText("GEOSEARCH", "nokey", "FROMMEMBER", "nope", "BYRADIUS", "1", "km"), Is.EqualTo("*0\r\n"));
        Assert.That(c.RunText("GEOSEARCH", "nokey", "FROMMEMBER", "nope", "BYRADIUS", "-1", "km"), Is.EqualTo("-ERR radius cannot be negative\r\n"));
    }

    [Test]
    public void AddOptionsAndZsetInterplay()
    {
        using var c = Raw();
        Assert.That(c.RunText("GEOADD", "a", "XX", "1", "1", "m"), Is.EqualTo(":0\r\n"));
        Assert.That(c.RunText("EXISTS", "a"), Is.EqualTo(":0\r\n"), "XX creates nothing");
        Assert.That(c.RunText("GEOADD", "a", "1", "1", "m", "2", "2", "n"), Is.EqualTo(":2\r\n"));
        Assert.That(c.RunText("GEOADD", "a", "NX", "3", "3", "m", "4", "4", "o"), Is.EqualTo(":1\r\n"));
        Assert.That(c.RunText("GEOADD", "a", "CH", "5", "5", "m", "4", "4", "o", "6", "6", "p"), Is.EqualTo(":2\r\n"), "CH: added + changed");
        Assert.That(c.RunText("GEOADD", "a", "XX", "CH", "7", "7", "m", "8", "8", "q"), Is.EqualTo(":1\r\n"));
        Assert.That(c.RunText("ZCARD", "a"), Is.EqualTo(":4\r\n"));
        Assert.That(c.RunText("TYPE", "a"), Is.EqualTo("+zset\r\n"));
        Assert.That(c.RunText("OBJECT", "ENCODING", "a"), Is.EqualTo("$8\r\nlistpack\r\n"));
        // A member ZADDed with a geohash score has that position; any score decodes to some position, as in Redis.
        Assert.That(c.RunText("ZADD", "a", PalermoScore, "z"), Is.EqualTo(":1\r\n"));
        Assert.That(c.RunText("GEOPOS", "a", "z"), Is.EqualTo($"*1\r\n*2\r\n$20\r\n{PalermoLon}\r\n$20\r\n{PalermoLat}\r\n"));
        Assert.That(c.RunText("ZADD", "a", "0", "zero", "-1", "neg", "inf", "inf"), Is.EqualTo(":3\r\n"));
        Assert.That(c.RunText("GEOPOS", "a", "zero"), Is.EqualTo("*1\r\n*2\r\n$22\r\n-179.99999731779098511\r\n$21\r\n-85.05112751263942528\r\n"));
        Assert.That(c.RunText("GEOHASH", "a", "neg", "inf"), Is.EqualTo("*2\r\n$11\r\nbp05b5048p0\r\n$11\r\n00bh0hbj200\r\n"));
        // GEORADIUS ... STORE leaves a sorted set of geohash scores (or of distances with STOREDIST).
        AddSicily(c);
        Assert.That(c.RunText("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "near"), Is.EqualTo(":2\r\n"));
        Assert.That(c.RunText("ZRANGE", "near", "0", "-1", "WITHSCORES"), Is.EqualTo($"*4\r\n$7\r\nPalermo\r\n$16\r\n{PalermoScore}\r\n$7\r\nCatania\r\n$16\r\n{CataniaScore}\r\n"));
        Assert.That(c.RunText("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "STOREDIST", "dist", "COUNT", "1", "DESC"), Is.EqualTo(":1\r\n"));
        Assert.That(c.RunText("ZRANGE", "dist", "0", "-1", "WITHSCORES"), Is.EqualTo("*2\r\n$7\r\nCatania\r\n$18\r\n166.27415156960032\r\n"));
    }

    [Test]
    public void SearchesAndStores()
    {
        using var c = Raw();
        // Eight members at one point and two further away: ties keep Redis's order (see RedisGeoCompatTests).
        c.Run("GEOADD", "s", "1", "1", "a", "1", "1", "b", "1", "1", "c", "1", "1", "d", "1.001", "1", "e", "1.5", "1.5", "f");
        Assert.That(c.RunText("GEOSEARCH", "s", "FROMMEMBER", "a", "BYRADIUS", "0", "m"), Is.EqualTo("*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"), "radius 0: the same position only");
        Assert.That(c.RunText("GEOSEARCH", "s", "FROMLONLAT", "1", "1", "BYRADIUS", "0", "m"), Is.EqualTo("*0\r\n"), "a stored position is its cell's centre, not the point given");
        Assert.That(c.RunText("GEOSEARCH", "s", "FROMMEMBER", "a", "BYRADIUS", "200", "m", "WITHDIST", "DESC", "COUNT", "1"), Is.EqualTo("*1\r\n*2\r\n$1\r\ne\r\n$8\r\n110.9627\r\n"));
        Assert.That(c.RunText("GEOSEARCH", "s", "FROMMEMBER", "a", "BYRADIUS", "200", "km", "COUNT", "2", "ANY"), Is.EqualTo("*2\r\n$1\r\na\r\n$1\r\nb\r\n"), "ANY: the first found");
        Assert.That(c.RunText("GEOSEARCH", "s", "FROMMEMBER", "a", "BYBOX", "223", "1", "m", "ASC"), Is.EqualTo("*5\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n"));
        Assert.That(c.RunText("GEOSEARCH", "s", "FROMMEMBER", "a", "BYBOX", "221", "1", "m", "ASC"), Is.EqualTo("*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"), "a box is width x height, centred");
        Assert.That(c.RunText("GEOSEARCH", "s", "FROMLONLAT", "1", "1", "BYRADIUS", "50", "mi", "WITHDIST", "DESC", "COUNT", "1"), Is.EqualTo("*1\r\n*2\r\n$1\r\nf\r\n$7\r\n48.8645\r\n"));
        Assert.That(c.RunText("GEOSEARCH", "s", "FROMLONLAT", "1", "1", "BYRADIUS", "400000", "ft", "WITHDIST", "DESC", "COUNT", "1"), Is.EqualTo("*1\r\n*2\r\n$1\r\nf\r\n$11\r\n258003.8469\r\n"));

        // STORE into a key of any type replaces it (and its TTL); an empty result deletes it; a missing source too.
        c.Run("SET", "dest", "string", "EX", "100");
        Assert.That(c.RunText("GEOSEARCHSTORE", "dest", "s", "FROMMEMBER", "f", "BYRADIUS", "1", "km"), Is.EqualTo(":1\r\n"));
        Assert.That(c.RunText("TYPE", "dest"), Is.EqualTo("+zset\r\n"));
        Assert.That(c.RunText("TTL", "dest"), Is.EqualTo(":-1\r\n"));
        Assert.That(c.RunText("GEOSEARCHSTORE", "dest", "s", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km", "STOREDIST", "COUNT", "2", "DESC"), Is.EqualTo(":2\r\n"));
        Assert.That(c.RunText("ZRANGE", "dest", "0", "-1"), Is.EqualTo("*2\r\n$1\r\na\r\n$1\r\ne\r\n"), "the farthest, then one of the four tied (Redis's pick)");
        Assert.That(c.RunText("ZSCORE", "dest", "e"), Is.EqualTo("$19\r\n0.11095605765001189\r\n"), "STOREDIST: the distance in the unit");
        Assert.That(c.RunText("GEOSEARCHSTORE", "dest", "s", "FROMLONLAT", "50", "50", "BYRADIUS", "1", "km"), Is.EqualTo(":0\r\n"));
        Assert.That(c.RunText("EXISTS", "dest"), Is.EqualTo(":0\r\n"));
        c.Run("SET", "dest", "string");
        Assert.That(c.RunText("GEORADIUS", "nokey", "1", "1", "1", "km", "STORE", "dest"), Is.EqualTo(":0\r\n"));
        Assert.That(c.RunText("EXISTS", "dest"), Is.EqualTo(":0\r\n"));
        Assert.That(c.RunText("GEOSEARCHSTORE", "s", "s", "FROMMEMBER", "f", "BYRADIUS", "1", "km"), Is.EqualTo(":1\r\n"), "the source can be the destination");
        Assert.That(c.RunText("ZRANGE", "s", "0", "-1"), Is.EqualTo("*1\r\n$1\r\nf\r\n"));
    }

    [Test]
    public void CommandTableRows()
    {
        using var c = Raw();
        Assert.That(c.RunText("COMMAND", "INFO", "geoadd"), Does.StartWith("*1\r\n*10\r\n$6\r\ngeoadd\r\n:-5\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@write\r\n+@geo\r\n+@slow\r\n"));
        Assert.That(c.RunText("COMMAND", "INFO", "geosearch"), Does.StartWith("*1\r\n*10\r\n$9\r\ngeosearch\r\n:-7\r\n*1\r\n+readonly\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@read\r\n+@geo\r\n+@slow\r\n"));
        Assert.That(c.RunText("COMMAND", "GETKEYS", "GEOSEARCHSTORE", "dst", "src", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"), Is.EqualTo("*2\r\n$3\r\ndst\r\n$3\r\nsrc\r\n"));
        var geo = c.RunText("COMMAND", "LIST", "FILTERBY", "ACLCAT", "geo");
        Assert.That(geo, Does.StartWith("*10\r\n"));
        foreach (var name in new[] { "geoadd", "geodist", "geohash", "geopos", "georadius", "georadius_ro", "georadiusbymember", "georadiusbymember_ro", "geosearch", "geosearchstore" })
            Assert.That(geo, Does.Contain($"\r\n{name}\r\n"));
    }

    [Test]
    public void AofReplaysGeoWrites()
    {
        string dir = Path.Combine(Path.GetTempPath(), "garnet-geo-" + Guid.NewGuid().ToString("N"));
        Action<GarnetServerOptions> aof = o => { o.Aof = true; o.AofFsync = "always"; };
        try
        {
            string before;
            using (var server = new TestServer(aof, dir))
            using (var c = new RawResp(server.Port))
            {
                AddSicily(c);
                c.Run("GEOADD", "Sicily", "CH", "13.5", "38", "Palermo");
                c.Run("GEOSEARCHSTORE", "near", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "100", "km", "STOREDIST");
                c.Run("GEORADIUS", "Sicily", "15", "37", "300", "km", "STORE", "all");
                before = c.RunText("ZRANGE", "Sicily", "0", "-1", "WITHSCORES") + c.RunText("ZRANGE", "near", "0", "-1", "WITHSCORES") + c.RunText("ZRANGE", "all", "0", "-1");
                server.Server.Server.SaveOnStop = false;
            }
            using (var server = new TestServer(aof, dir))
            using (var c = new RawResp(server.Port))
            {
                string after = c.RunText("ZRANGE", "Sicily", "0", "-1", "WITHSCORES") + c.RunText("ZRANGE", "near", "0", "-1", "WITHSCORES") + c.RunText("ZRANGE", "all", "0", "-1");
                Assert.That(after, Is.EqualTo(before));
                Assert.That(after, Does.Contain("Catania"));
            }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    // ---------------------------------------------------------------------------------------------
    // The algorithm on its own
    // ---------------------------------------------------------------------------------------------

    [Test]
    public void HashArithmetic()
    {
        Assert.That(GeoHash.Score(13.361389, 38.115556), Is.EqualTo(3479099956230698UL));
        Assert.That(GeoHash.Score(15.087269, 37.502669), Is.EqualTo(3479447370796909UL));
        Assert.That(GeoHash.Score(-180, GeoHash.LatMin), Is.EqualTo(0UL));
        var (lon, lat) = GeoHash.DecodeScore(3479099956230698);
        Assert.That(FixedFormatText(lon), Is.EqualTo(PalermoLon));
        Assert.That(FixedFormatText(lat), Is.EqualTo(PalermoLat));
        Assert.That(GeoHash.ToBase32(3479099956230698), Is.EqualTo("sqc8b49rny0"));
        // Every position decodes to within half a cell of itself, and re-encodes to the same score.
        var rnd = new Random(7);
        for (int i = 0; i < 10000; i++)
        {
            double x = rnd.NextDouble() * 360 - 180, y = rnd.NextDouble() * 2 * GeoHash.LatMax - GeoHash.LatMax;
            ulong score = GeoHash.Score(x, y);
            Assert.That(score, Is.LessThan(1UL << 52));
            var (dx, dy) = GeoHash.DecodeScore(score);
            Assert.That(Math.Abs(dx - x), Is.LessThanOrEqualTo(360.0 / (1 << 26)));
            Assert.That(Math.Abs(dy - y), Is.LessThanOrEqualTo(2 * GeoHash.LatMax / (1 << 26)));
            Assert.That(GeoHash.Score(dx, dy), Is.EqualTo(score));
        }
        // C's (uint64_t) cast on x86-64.
        Assert.That(GeoHash.CastToUInt64(-1.5), Is.EqualTo(ulong.MaxValue));
        Assert.That(GeoHash.CastToUInt64(1e19), Is.EqualTo(10000000000000000000UL));
        Assert.That(GeoHash.CastToUInt64(double.PositiveInfinity), Is.EqualTo(0UL));
        Assert.That(GeoHash.CastToUInt64(-1e30), Is.EqualTo(0x8000000000000000UL));
        // Steps and distances.
        Assert.That(GeoHash.EstimateSteps(0, 0), Is.EqualTo(26));
        Assert.That(GeoHash.EstimateSteps(200000, 10), Is.EqualTo(6));
        Assert.That(GeoHash.EstimateSteps(200000, 70), Is.EqualTo(5));
        Assert.That(GeoHash.EstimateSteps(200000, 85), Is.EqualTo(4));
        Assert.That(GeoHash.EstimateSteps(1e9, 0), Is.EqualTo(1));
        Assert.That(GeoHash.Distance(0, 0, 0, 1), Is.EqualTo(GeoHash.EarthRadius * Math.PI / 180).Within(1e-6));
        Assert.That(GeoHash.Distance(0, 0, 180, 0), Is.EqualTo(GeoHash.EarthRadius * Math.PI).Within(1e-6));
    }

    [Test]
    public void SearchCellsCoverTheShape()
    {
        // Every point within the radius lies in one of the cells scanned (checked by brute force around a few centres).
        // Not at longitude 180 or latitude 85.05112878 exactly: as in Redis, those encode past 52 bits and no search
        // finds them (GEOADD k 180 0 m scores 10133099161583616).
        var rnd = new Random(11);
        foreach (var (clon, clat, radius) in new[] { (15.0, 37.0, 200000.0), (179.9, 0.0, 50000.0), (0.0, 84.9, 300000.0), (-45.0, -60.0, 1000.0), (10.0, 10.0, 0.0) })
        {
            var shape = new GeoHash.Shape { Lon = clon, Lat = clat, Radius = radius };
            var cells = GeoHash.SearchCells(shape, out _);
            Assert.That(cells[0].IsZero, Is.False, "the centre is always scanned");
            for (int i = 0; i < 3000; i++)
            {
                double lon = Math.Clamp(clon + (rnd.NextDouble() * 2 - 1) * 10, -180, 179.999999), lat = Math.Clamp(clat + (rnd.NextDouble() * 2 - 1) * 5, GeoHash.LatMin, 85.05);
                double score = GeoHash.Score(lon, lat);
                if (!GeoHash.Within(shape, score, out _, out _, out _)) continue;
                Assert.That(cells.Any(c => !c.IsZero && GeoHash.ScoreRange(c) is var (min, max) && score >= min && score < max),
                    $"{lon},{lat} is within {radius} m of {clon},{clat} but in no scanned cell");
            }
        }
    }

    [Test]
    public void NumbersPrintAsGlibc()
    {
        Assert.That(FixedFormat.Printf(200, 6), Is.EqualTo("200.000000"));
        Assert.That(FixedFormat.Printf(-0.0, 6), Is.EqualTo("-0.000000"));
        Assert.That(FixedFormat.Printf(0.0078125, 6), Is.EqualTo("0.007812"), "exact ties round to even");
        Assert.That(FixedFormat.Printf(0.0234375, 6), Is.EqualTo("0.023438"));
        Assert.That(FixedFormat.Printf(2.5, 0), Is.EqualTo("2"));
        Assert.That(FixedFormat.Printf(-1e-9, 6), Is.EqualTo("-0.000000"));
        Assert.That(FixedFormat.Printf(1e22, 1), Is.EqualTo("10000000000000000000000.0"));
        Assert.That(FixedFormat.Printf(0.1, 20), Is.EqualTo("0.10000000000000000555"));
        Assert.That(FixedFormat.Printf(double.NegativeInfinity, 6), Is.EqualTo("-inf"));
        Assert.That(FixedFormat.Human(13.361389338970184), Is.EqualTo(PalermoLon));
        Assert.That(FixedFormat.Human(-1e-30), Is.EqualTo("0"));
        Assert.That(FixedFormat.Human(12.5), Is.EqualTo("12.5"));
        Assert.That(FixedFormat.Human(180), Is.EqualTo("180"));
        Assert.That(FixedFormat.Distance(166274.15156960033), Is.EqualTo("166274.1516"));
        Assert.That(FixedFormat.Distance(0), Is.EqualTo("0.0000"));
        Assert.That(FixedFormat.Distance(0.00004), Is.EqualTo("0.0000"));
        Assert.That(FixedFormat.Distance(0.7750), Is.EqualTo("0.7750"));
        Assert.That(FixedFormat.Distance(-0.01), Is.EqualTo("-0.0100"));
        Assert.That(FixedFormat.Distance(12345.00005), Is.EqualTo("12345.0000"), "llrint rounds half to even");
    }

    [Test]
    public void PartialSortPutsTheFirstOnesInPlace()
    {
        var rnd = new Random(3);
        for (int round = 0; round < 500; round++)
        {
            int n = rnd.Next(1, 200), k = rnd.Next(1, n + 1);
            var items = Enumerable.Range(0, n).Select(_ => rnd.Next(0, round % 2 == 0 ? 5 : 1000)).ToArray();
            var expected = items.Order().Take(k).ToArray();
            var copy = (int[])items.Clone();
            PartialQuickSort.Sort(copy, (a, b) => a.CompareTo(b), k);
            Assert.That(copy.Take(k), Is.EqualTo(expected));
            Assert.That(copy.Order(), Is.EqualTo(items.Order()), "a permutation");
        }
    }

    private static string FixedFormatText(double v) => FixedFormat.Human(v);
}
