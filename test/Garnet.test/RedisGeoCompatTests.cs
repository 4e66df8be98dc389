// The GEO commands side by side with Debian's redis-server (7.0.15, whose geo.c, geohash.c and geohash_helper.c are
// Redis 7.2's): the same scripts run on both servers, over RESP2 and RESP3, and every reply must be the same bytes:
// scores, coordinates, distances, geohashes, search order and membership, errors. Lines starting with "~" compare
// numbers by value (7.0 prints non-integer zset scores with %.17g where 7.2, and this server, print the shortest
// round-trip digits). A seeded random part adds clusters of points (with repeated positions, near the poles and the
// antimeridian) and searches with every option. Fails when redis-server is missing (RequiredTools).
using System.Globalization;
using System.Text;

namespace Garnet.test;

[TestFixture]
public class RedisGeoCompatTests : RedisSideBySide
{
    private const string Basics = """
        GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
        ZRANGE Sicily 0 -1 WITHSCORES
        GEODIST Sicily Palermo Catania
        GEODIST Sicily Palermo Catania km
        GEODIST Sicily Palermo Catania MI
        GEODIST Sicily Palermo Catania ft
        GEODIST Sicily Palermo Catania m
        GEODIST Sicily Palermo Palermo km
        GEODIST Sicily Palermo Foo
        GEODIST Sicily Palermo Catania parsecs
        GEODIST Sicily Palermo Catania km extra
        GEODIST nokey a b
        GEODIST nokey a b parsecs
        GEOPOS Sicily Palermo Catania NonExisting
        GEOPOS nokey a b
        GEOPOS Sicily
        GEOHASH Sicily Palermo Catania nope
        GEOHASH nokey a
        GEOHASH Sicily
        GEOADD k 200 100 m
        GEOADD k -0 100 m
        GEOADD k 1 -85.06 m
        GEOADD k inf 1 m
        GEOADD k 1e300 1 m
        GEOADD k 0.0078125 99 m
        GEOADD k 1 1 m 2 x n
        GEOADD k abc 1 m
        GEOADD k nan 1 m
        GEOADD k 1 1
        GEOADD k NX XX 1 1 m
        GEOADD k XX 1 1 m
        EXISTS k
        GEOADD k NX 1 1 m
        GEOADD k CH 1 1 m 2 2 n
        GEOADD k CH NX 3 3 m 4 4 o
        GEOADD k XX CH 5 5 m 6 6 p
        GEOADD k ch xx nx 1 1 m
        GEOADD k 7 7 q 8 8 q
        GEOADD k GT 1 1 m
        GEOADD k GT 1 1
        GEOADD k CH CH CH
        GEOADD k a b c
        GEOADD k 1 1 m 2 2
        ZRANGE k 0 -1 WITHSCORES
        OBJECT ENCODING k
        ZADD z -1 neg 1e30 big inf pinf -inf ninf 0 zero 4503599627370496 b52 9e18 big2 1.5 frac 18446744073709551616 b64 1e19 b63
        GEOPOS z neg big pinf ninf zero b52 big2 frac b64 b63
        GEOHASH z neg big pinf ninf zero b52 big2 frac b64 b63
        GEODIST z neg big
        GEORADIUS z 0 0 100 km WITHHASH WITHCOORD
        GEOADD poles 180 85.05112878 ne -180 -85.05112878 sw 0 0 o 179.999 0 e -179.999 0 w
        GEOPOS poles ne sw o e w
        GEOHASH poles ne sw o e w
        GEORADIUS poles 180 0 500 km WITHDIST ASC
        GEORADIUS poles 0 0 20000 km WITHDIST ASC
        GEORADIUS poles 0 0 5000 km WITHDIST DESC
        GEOSEARCH poles FROMLONLAT 0 85 BYBOX 40000 2000 km WITHDIST
        SET str x
        GEOADD str 1 1 a
        GEOPOS str a
        GEODIST str a b
        GEODIST str a b parsecs
        GEOHASH str a
        GEORADIUS str 1 1 1 km
        GEORADIUS str 200 1 1 km
        GEORADIUSBYMEMBER str a 1 km
        GEOSEARCH str FROMLONLAT 200 1 BYRADIUS 1 km
        GEOSEARCHSTORE dst str FROMLONLAT 1 1 BYRADIUS 1 km
        GEOADD
        GEOPOS
        GEORADIUS k 1 1 1
        GEOSEARCH k FROMLONLAT 1 1
        """;

    private const string Searches = """
        GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 12.758489 38.788135 edge1 17.241510 38.788135 edge2
        GEORADIUS Sicily 15 37 200 km
        GEORADIUS Sicily 15 37 200 km WITHDIST
        GEORADIUS Sicily 15 37 200 km WITHCOORD
        GEORADIUS Sicily 15 37 200 km WITHHASH
        GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH
        GEORADIUS Sicily 15 37 200 km WITHCOORD WITHHASH WITHDIST ASC
        GEORADIUS Sicily 15 37 200 km DESC
        GEORADIUS Sicily 15 37 200 km withdist desc
        GEORADIUS Sicily 15 37 200 km ASC DESC
        GEORADIUS Sicily 15 37 200 km COUNT 1
        GEORADIUS Sicily 15 37 200 km COUNT 1 DESC
        GEORADIUS Sicily 15 37 200 km COUNT 1 ANY
        GEORADIUS Sicily 15 37 200 km COUNT 2 ANY DESC
        GEORADIUS Sicily 15 37 200 km COUNT 100
        GEORADIUS Sicily 15 37 200 km COUNT 1 COUNT 3
        GEORADIUS Sicily 15 37 200 km ANY
        GEORADIUS Sicily 15 37 200 km COUNT 0
        GEORADIUS Sicily 15 37 200 km COUNT -1
        GEORADIUS Sicily 15 37 200 km COUNT x
        GEORADIUS Sicily 15 37 200 km COUNT
        GEORADIUS Sicily 15 37 200 km BOGUS
        GEORADIUS Sicily 15 37 200 km FROMMEMBER Palermo
        GEORADIUS Sicily 200 100 200 km
        GEORADIUS Sicily 15 37 -1 km
        GEORADIUS Sicily 15 37 abc km
        GEORADIUS Sicily 15 37 200 parsecs
        GEORADIUS Sicily abc 37 200 km
        GEORADIUS Sicily 15 37 0 km
        GEORADIUS Sicily 13.361389 38.115556 0 km
        GEORADIUS Sicily 15 37 200000 m
        GEORADIUS Sicily 15 37 124.274 mi WITHDIST
        GEORADIUS Sicily 15 37 656168 ft WITHDIST
        GEORADIUS Sicily 15 37 200 KM WITHDIST
        GEORADIUS Sicily 15 37 200 km STORE dst
        ZRANGE dst 0 -1 WITHSCORES
        ~ GEORADIUS Sicily 15 37 200 km STOREDIST dst2
        ~ ZRANGE dst2 0 -1 WITHSCORES
        GEORADIUS Sicily 15 37 200 km STORE dst COUNT 1 DESC
        ZRANGE dst 0 -1 WITHSCORES
        GEORADIUS Sicily 15 37 200 km STORE dst STOREDIST dst3
        ~ ZRANGE dst3 0 -1 WITHSCORES
        EXISTS dst
        GEORADIUS Sicily 15 37 200 km STORE dst WITHDIST
        GEORADIUS Sicily 15 37 200 km STOREDIST dst WITHCOORD
        GEORADIUS Sicily 15 37 200 km STORE
        GEORADIUS Sicily 0 0 1 km STORE dst
        EXISTS dst
        SET dst string
        GEORADIUS Sicily 15 37 200 km STORE dst
        TYPE dst
        GEORADIUS nokey 15 37 200 km STORE dst
        EXISTS dst
        GEORADIUS nokey 15 37 200 km
        GEORADIUS nokey 15 37 200 km ANY
        GEORADIUS nokey 15 37 200 km STORE dst WITHDIST
        GEORADIUS_RO Sicily 15 37 200 km STORE dst
        GEORADIUS_RO Sicily 15 37 200 km STOREDIST dst
        GEORADIUS_RO Sicily 15 37 200 km WITHDIST COUNT 1
        GEORADIUSBYMEMBER Sicily Palermo 200 km WITHDIST
        GEORADIUSBYMEMBER Sicily Palermo 100 km WITHDIST WITHCOORD
        GEORADIUSBYMEMBER Sicily Palermo 0 km
        GEORADIUSBYMEMBER Sicily Nope 100 km WITHDIST
        GEORADIUSBYMEMBER Sicily Nope abc km
        GEORADIUSBYMEMBER Sicily Palermo abc km
        GEORADIUSBYMEMBER Sicily Palermo 100 parsecs
        GEORADIUSBYMEMBER nokey Nope abc parsecs
        GEORADIUSBYMEMBER nokey Nope abc km STORE dst
        GEORADIUSBYMEMBER nokey Nope abc km BOGUS
        GEORADIUSBYMEMBER Sicily Palermo 200 km STORE dst COUNT 1
        ZRANGE dst 0 -1 WITHSCORES
        GEORADIUSBYMEMBER_RO Sicily Palermo 200 km WITHDIST COUNT 1
        GEORADIUSBYMEMBER_RO Sicily Palermo 200 km STORE dst
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC WITHCOORD WITHDIST WITHHASH
        GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 400 400 km ASC WITHCOORD WITHDIST WITHHASH
        GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 4 4 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 0 0 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 200 100 mi COUNT 2 DESC
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 1 ANY WITHDIST
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ANY
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km BYRADIUS 100 km
        GEOSEARCH Sicily FROMMEMBER Palermo FROMMEMBER Catania BYRADIUS 100 km
        GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 15 37 BYRADIUS 200 km
        GEOSEARCH Sicily FROMLONLAT 15 37 FROMMEMBER Palermo BYRADIUS 200 km
        GEOSEARCH Sicily BYRADIUS 200 km BYBOX 1 1 km FROMMEMBER Palermo
        GEOSEARCH Sicily BYBOX 1 1 km BYRADIUS 200 km FROMMEMBER Palermo
        GEOSEARCH Sicily FROMMEMBER Palermo WITHDIST
        geosearch Sicily BYRADIUS 200 km WITHDIST
        GeoSearch Sicily FROMMEMBER Palermo WITHDIST
        GEOSEARCH Sicily FROMMEMBER Nope BYRADIUS 200 km
        GEOSEARCH Sicily BYRADIUS -1 km FROMMEMBER Nope
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km STORE dst
        GEOSEARCH Sicily FROMLONLAT 15 BYRADIUS 200 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 200 km
        GEOSEARCH nokey FROMMEMBER Nope BYRADIUS 200 km
        GEOSEARCH nokey FROMLONLAT 15 37 BYRADIUS -1 km
        GEOSEARCH nokey FROMLONLAT 15 37 BYRADIUS 1 km ANY
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX -1 2 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX x 2 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 2 x km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 2 -2 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 2 2 kmx
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC COUNT 1
        ZRANGE dst 0 -1 WITHSCORES
        ~ GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST
        ~ ZRANGE dst 0 -1 WITHSCORES
        GEOSEARCHSTORE dst Sicily FROMMEMBER Catania BYBOX 300 300 km STOREDIST COUNT 2 DESC
        ~ ZRANGE dst 0 -1 WITHSCORES
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHDIST
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km STORE x
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 1 ANY
        ZRANGE dst 0 -1
        GEOSEARCHSTORE dst nokey FROMLONLAT 15 37 BYRADIUS 200 km
        EXISTS dst
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km
        GEOSEARCHSTORE dst Sicily FROMLONLAT 0 0 BYRADIUS 1 km
        EXISTS dst
        GEOSEARCHSTORE Sicily Sicily FROMMEMBER Palermo BYRADIUS 1 km
        ZRANGE Sicily 0 -1 WITHSCORES
        GEOADD same 1 1 a 1 1 b 1 1 c 1 1 d 1 1 e 1 1 f 1 1 g 1 1 h 2 2 i 2 2 j
        GEORADIUS same 1 1 500 km
        GEORADIUS same 1 1 500 km DESC
        GEORADIUS same 1 1 500 km COUNT 3
        GEORADIUS same 1 1 500 km COUNT 9 DESC
        GEORADIUS same 1 1 500 km COUNT 4 ANY
        GEORADIUS same 2 2 500 km COUNT 5 WITHDIST
        """;

    [Test]
    public void BasicsMatchRedis([Values(2, 3)] int protocol) => RunScript(Basics, protocol);

    [Test]
    public void SearchesMatchRedis([Values(2, 3)] int protocol) => RunScript(Searches, protocol);

    [Test]
    public void RandomSearchesMatchRedis([Values(2, 3)] int protocol)
    {
        var rnd = new Random(20240611 + protocol);
        var lines = new List<string>();
        string F(double v) => v.ToString("0.######", CultureInfo.InvariantCulture);
        string[] units = ["m", "km", "mi", "ft"];
        double[] conversions = [1, 1000, 1609.34, 0.3048];
        for (int round = 0; round < 8; round++)
        {
            lines.Add("DEL g d");
            bool extreme = round % 2 == 1;
            double clat = extreme ? new[] { -85.05, 85.05, -80.0, 80.0, 70.0, -70.0, 0.0 }[rnd.Next(7)] + rnd.NextDouble() * 0.02 - 0.01 : rnd.NextDouble() * 168 - 84;
            double clon = extreme ? new[] { -180.0, 180.0, 0.0, 179.99, -179.99 }[rnd.Next(5)] : rnd.NextDouble() * 360 - 180;
            double spread = new[] { 0.001, 0.1, 1, 10, 60 }[rnd.Next(5)];
            var points = new List<(double Lon, double Lat)>();
            int count = new[] { 5, 50, 300 }[rnd.Next(3)];
            var add = new StringBuilder("GEOADD g");
            for (int i = 0; i < count; i++)
            {
                (double Lon, double Lat) p = points.Count > 0 && rnd.NextDouble() < 0.2 ? points[rnd.Next(points.Count)]
                    : (Math.Clamp(clon + (rnd.NextDouble() * 2 - 1) * spread, -180, 180), Math.Clamp(clat + (rnd.NextDouble() * 2 - 1) * spread, -85.05, 85.05));
                points.Add(p);
                add.Append($" {F(p.Lon)} {F(p.Lat)} m{i}");
            }
            lines.Add(add.ToString());
            for (int q = 0; q < 12; q++)
            {
                int u = rnd.Next(4);
                double[] radii = extreme ? [0, 1, 1000, 1e6, 5e6, 1e7, 2e7, 4e7] : [0, 1, 100, 1000, 10000, 100000, 1e6, 5e6];
                string radius = F(Math.Round(radii[rnd.Next(radii.Length)] * rnd.NextDouble() / conversions[u], 3));
                string height = F(Math.Round(double.Parse(radius, CultureInfo.InvariantCulture) * (0.2 + rnd.NextDouble() * 2.8), 3));
                var options = new List<string>();
                if (rnd.NextDouble() < 0.5) options.Add("WITHDIST");
                if (rnd.NextDouble() < 0.3) options.Add("WITHCOORD");
                if (rnd.NextDouble() < 0.3) options.Add("WITHHASH");
                int order = rnd.Next(3);
                if (order > 0) options.Add(order == 1 ? "ASC" : "DESC");
                if (rnd.NextDouble() < 0.5)
                {
                    options.Add("COUNT");
                    options.Add(new[] { 1, 2, 3, 5, 10, 40 }[rnd.Next(6)].ToString(CultureInfo.InvariantCulture));
                    if (rnd.NextDouble() < 0.3) options.Add("ANY");
                }
                string opts = string.Join(' ', options);
                string unit = units[u];
                if (rnd.NextDouble() < 0.5)
                {
                    var (lon, lat) = rnd.NextDouble() < 0.5 ? points[rnd.Next(points.Count)] : (clon, clat);
                    lines.Add($"GEORADIUS g {F(lon)} {F(lat)} {radius} {unit} {opts}");
                    lines.Add($"GEOSEARCH g FROMLONLAT {F(lon)} {F(lat)} BYBOX {radius} {height} {unit} {opts}");
                }
                else
                {
                    string member = "m" + rnd.Next(points.Count);
                    lines.Add($"GEORADIUSBYMEMBER g {member} {radius} {unit} {opts}");
                    lines.Add($"GEOSEARCH g FROMMEMBER {member} BYRADIUS {radius} {unit} {opts}");
                }
                if (rnd.NextDouble() < 0.25)
                {
                    string store = string.Join(' ', options.Where(o => !o.StartsWith("WITH", StringComparison.Ordinal)));
                    lines.Add($"GEOSEARCHSTORE d g FROMLONLAT {F(clon)} {F(clat)} BYRADIUS {radius} {unit} {store}");
                    lines.Add("ZRANGE d 0 -1 WITHSCORES");
                }
            }
            var some = Enumerable.Range(0, 5).Select(_ => "m" + rnd.Next(points.Count)).ToArray();
            lines.Add("GEOPOS g " + string.Join(' ', some));
            lines.Add("GEOHASH g " + string.Join(' ', some));
            lines.Add($"GEODIST g {some[0]} {some[1]} km");
        }
        RunScript(string.Join('\n', lines), protocol);
    }

    /// <summary>Runs every line on both servers (after FLUSHALL, in the given protocol) and compares the replies.</summary>
    private void RunScript(string script, int protocol)
    {
        using var ours = new RawResp(_ours!.Port);
        using var redis = new RawResp(_redis!.Port);
        foreach (var c in new[] { ours, redis })
        {
            c.Run("HELLO", protocol.ToString(CultureInfo.InvariantCulture));
            c.Run("FLUSHALL");
        }
        int compared = 0;
        var differences = new List<string>();
        foreach (var raw in script.Split('\n'))
        {
            string line = raw.Trim();
            if (line.Length == 0) continue;
            bool numeric = line.StartsWith('~');
            if (numeric) line = line[1..].Trim();
            object[] args = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            string a = Encoding.UTF8.GetString(ours.Run(args)), b = Encoding.UTF8.GetString(redis.Run(args));
            compared++;
            if (numeric ? !SameNumbers(a, b) : a != b)
                differences.Add($"{line}\n  ours : {Escape(a)}\n  redis: {Escape(b)}");
        }
        Assert.That(differences, Is.Empty, $"{differences.Count} of {compared} replies differ (RESP{protocol}):\n" + string.Join('\n', differences.Take(10)));
        Assert.That(compared, Is.GreaterThan(10));
    }

    /// <summary>The same reply lines, numbers compared by value (bulk length lines skipped).</summary>
    private static bool SameNumbers(string a, string b)
    {
        var x = a.Split("\r\n").Where(l => !l.StartsWith('$')).ToArray();
        var y = b.Split("\r\n").Where(l => !l.StartsWith('$')).ToArray();
        if (x.Length != y.Length) return false;
        for (int i = 0; i < x.Length; i++)
        {
            if (x[i] == y[i]) continue;
            string p = x[i].TrimStart(','), q = y[i].TrimStart(',');
            if (!double.TryParse(p, NumberStyles.Float, CultureInfo.InvariantCulture, out double u)
                || !double.TryParse(q, NumberStyles.Float, CultureInfo.InvariantCulture, out double v) || u != v) return false;
        }
        return true;
    }

    private static string Escape(string s) => s.Length > 400 ? s[..400].Replace("\r\n", "\\r\\n") + "..." : s.Replace("\r\n", "\\r\\n");
}
