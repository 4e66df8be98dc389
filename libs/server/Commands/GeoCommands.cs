// GeoCommands: Redis 7.2's GEO family (geo.c) on sorted sets: GEOADD stores each position as the member's 52-bit
// geohash score (GeoHash), so a geo key is an ordinary zset and any zset's scores decode to positions. GEOADD is ZADD
// with scores computed from coordinates; the reads decode scores; the searches (GEOSEARCH[STORE], GEORADIUS[_RO],
// GEORADIUSBYMEMBER[_RO]) parse their arguments and scan the 9 cells of GeoHash.SearchCells inside one read of the key.
// Replies and errors follow Redis 7.2, including the order in which errors win (WRONGTYPE first, then the arguments
// in order, a missing member as soon as FROMMEMBER or BYMEMBER names it). Coordinates print as Redis's LD_STR_HUMAN
// (bulk strings in RESP2, doubles in RESP3), distances with 4 decimals; results are ordered as Redis orders them (a
// stable sort by distance, or with COUNT below the number found, Redis's partial quicksort: PartialQuickSort).
using System.Text;
using Garnet.server.Objects;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class GeoCommands
{
    private const string Syntax = "ERR syntax error";
    private const string NotMember = "ERR could not decode requested zset member";

    private static CollectionOp<SortedSetObject> ZOp(Func<SortedSetObject, bool> apply, Action? missing = null) =>
        new(ObjectKind.SortedSet, apply, missing: missing);

    // ---------------------------------------------------------------------------------------------
    // Arguments
    // ---------------------------------------------------------------------------------------------

    /// <summary>A longitude and latitude at index and index + 1; null, or Redis's error.</summary>
    private static string? ParseLonLat(CommandContext s, int index, out double lon, out double lat)
    {
        lat = 0;
        if (!SortedSetCommands.TryParseScore(s.Arg(index), out lon) || !SortedSetCommands.TryParseScore(s.Arg(index + 1), out lat))
            return StringFunctions.NotFloat;
        if (lon < GeoHash.LonMin || lon > GeoHash.LonMax || lat < GeoHash.LatMin || lat > GeoHash.LatMax)
            return $"ERR invalid longitude,latitude pair {FixedFormat.Printf(lon, 6)},{FixedFormat.Printf(lat, 6)}";
        return null;
    }

    /// <summary>The meters in one unit (M, KM, FT, MI, any case); null, or Redis's error.</summary>
    private static string? ParseUnit(ReadOnlySpan<byte> unit, out double meters)
    {
        meters = Ascii.EqualsIgnoreCase(unit, "M"u8) ? 1
            : Ascii.EqualsIgnoreCase(unit, "KM"u8) ? 1000
            : Ascii.EqualsIgnoreCase(unit, "FT"u8) ? 0.3048
            : Ascii.EqualsIgnoreCase(unit, "MI"u8) ? 1609.34
            : -1;
        return meters < 0 ? "ERR unsupported unit provided. please use M, KM, FT, MI" : null;
    }

    /// <summary>"radius unit" at index.</summary>
    private static string? ParseRadius(CommandContext s, int index, GeoHash.Shape shape)
    {
        if (!SortedSetCommands.TryParseScore(s.Arg(index), out double radius)) return "ERR need numeric radius";
        if (radius < 0) return "ERR radius cannot be negative";
        shape.Radius = radius;
        shape.IsBox = false;
        if (ParseUnit(s.Arg(index + 1), out double meters) is { } error) return error;
        shape.Conversion = meters;
        return null;
    }

    /// <summary>"width height unit" at index.</summary>
    private static string? ParseBox(CommandContext s, int index, GeoHash.Shape shape)
    {
        if (!SortedSetCommands.TryParseScore(s.Arg(index), out double width)) return "ERR need numeric width";
        if (!SortedSetCommands.TryParseScore(s.Arg(index + 1), out double height)) return "ERR need numeric height";
        if (height < 0 || width < 0) return "ERR height or width cannot be negative";
        shape.Width = width;
        shape.Height = height;
        shape.IsBox = true;
        if (ParseUnit(s.Arg(index + 2), out double meters) is { } error) return error;
        shape.Conversion = meters;
        return null;
    }

    /// <summary>A coordinate: Redis's human long double text, a bulk string in RESP2 and a double in RESP3.</summary>
    private static void WriteCoordinate(CommandContext s, double value)
    {
        string text = FixedFormat.Human(value);
        if (s.Protocol >= 3)
        {
            s.Writer.WriteRaw(","u8);
            s.Writer.WriteRaw(Encoding.ASCII.GetBytes(text));
            s.Writer.WriteRaw("\r\n"u8);
        }
        else s.Writer.WriteBulkString(text);
    }

    // ---------------------------------------------------------------------------------------------
    // GEOADD, GEOPOS, GEODIST, GEOHASH
    // ---------------------------------------------------------------------------------------------

    /// <summary>GEOADD key [NX|XX] [CH] longitude latitude member [...]: ZADD of the members' geohash scores.</summary>
    public static void Add(CommandContext s)
    {
        bool nx = false, xx = false, ch = false;
        int at = 2;
        for (; at < s.Argc; at++)
        {
            if (s.ArgEquals(at, "NX"u8)) nx = true;
            else if (s.ArgEquals(at, "XX"u8)) xx = true;
            else if (s.ArgEquals(at, "CH"u8)) ch = true;
            else break;
        }
        int elements = (s.Argc - at) / 3;
        if ((s.Argc - at) % 3 != 0 || (nx && xx) || elements == 0) { s.WriteError(Syntax); return; }
        var scores = new double[elements];
        var members = new byte[elements][];
        for (int i = 0; i < elements; i++)
        {
            if (ParseLonLat(s, at + 3 * i, out double lon, out double lat) is { } error) { s.WriteError(error); return; }
            scores[i] = GeoHash.Score(lon, lat);
            members[i] = s.Arg(at + 3 * i + 2).ToArray();
        }
        SortedSetCommands.AddScored(s, nx, xx, ch, scores, members);
    }

    /// <summary>GEOPOS key [member ...]: [longitude, latitude] per member, a null array for a missing one.</summary>
    public static void Pos(CommandContext s)
    {
        var members = CollectionCommand.Args(s, 2);
        var positions = new (double Lon, double Lat)?[members.Length];
        var op = ZOp(z =>
        {
            for (int i = 0; i < members.Length; i++)
                positions[i] = z.TryGetScore(members[i], out double score) ? GeoHash.DecodeScore(score) : null;
            return false;
        });
        if (!CollectionCommand.Run(s, s.Arg(1), op, write: false)) return;
        s.Writer.WriteArrayHeader(positions.Length);
        foreach (var p in positions)
        {
            if (p is not { } xy) { s.Writer.WriteNullArray(); continue; }
            s.Writer.WriteArrayHeader(2);
            WriteCoordinate(s, xy.Lon);
            WriteCoordinate(s, xy.Lat);
        }
    }

    /// <summary>GEODIST key member1 member2 [M|KM|FT|MI]: the distance, null when a member (or the key) is missing.</summary>
    public static void Dist(CommandContext s)
    {
        double toMeters = 1;
        if (s.Argc == 5)
        {
            if (ParseUnit(s.Arg(4), out toMeters) is { } error) { s.WriteError(error); return; }
        }
        else if (s.Argc > 5) { s.WriteError(Syntax); return; }
        var a = s.Arg(2).ToArray();
        var b = s.Arg(3).ToArray();
        double? distance = null;
        var op = ZOp(z =>
        {
            distance = null;
            if (z.TryGetScore(a, out double sa) && z.TryGetScore(b, out double sb))
            {
                var (lon1, lat1) = GeoHash.DecodeScore(sa);
                var (lon2, lat2) = GeoHash.DecodeScore(sb);
                distance = GeoHash.Distance(lon1, lat1, lon2, lat2) / toMeters;
            }
            return false;
        });
        if (!CollectionCommand.Run(s, s.Arg(1), op, write: false)) return;
        if (distance is { } d) s.Writer.WriteBulkString(FixedFormat.Distance(d));
        else s.Writer.WriteNull();
    }

    /// <summary>GEOHASH key [member ...]: the 11-character geohash per member, null for a missing one.</summary>
    public static void Hash(CommandContext s)
    {
        var members = CollectionCommand.Args(s, 2);
        var hashes = new string?[members.Length];
        var op = ZOp(z =>
        {
            for (int i = 0; i < members.Length; i++)
                hashes[i] = z.TryGetScore(members[i], out double score) ? GeoHash.ToBase32(score) : null;
            return false;
        });
        if (!CollectionCommand.Run(s, s.Arg(1), op, write: false)) return;
        s.Writer.WriteArrayHeader(hashes.Length);
        foreach (var h in hashes)
        {
            if (h is null) s.Writer.WriteNull(); else s.Writer.WriteBulkString(h);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Searches
    // ---------------------------------------------------------------------------------------------

    [Flags]
    private enum Mode
    {
        Coords = 1,       // GEORADIUS[_RO]: key longitude latitude radius unit
        Member = 2,       // GEORADIUSBYMEMBER[_RO]: key member radius unit
        NoStore = 4,      // the _RO forms: no STORE / STOREDIST
        Search = 8,       // GEOSEARCH[STORE]: FROMMEMBER/FROMLONLAT and BYRADIUS/BYBOX options
        SearchStore = 16, // GEOSEARCHSTORE destination source ...: STOREDIST without an argument
    }

    public static void Radius(CommandContext s) => Search(s, 1, Mode.Coords);
    public static void RadiusRo(CommandContext s) => Search(s, 1, Mode.Coords | Mode.NoStore);
    public static void RadiusByMember(CommandContext s) => Search(s, 1, Mode.Member);
    public static void RadiusByMemberRo(CommandContext s) => Search(s, 1, Mode.Member | Mode.NoStore);
    public static void GeoSearch(CommandContext s) => Search(s, 1, Mode.Search);
    public static void GeoSearchStore(CommandContext s) => Search(s, 2, Mode.Search | Mode.SearchStore);

    private enum Order { None, Asc, Desc }

    /// <summary>A parsed search.</summary>
    private sealed class Request
    {
        public readonly GeoHash.Shape Shape = new();
        public bool WithDist, WithHash, WithCoord, Any, StoreDist;
        public Order Sort;
        public long Count;          // 0: unlimited
        public int StoreKey = -1;   // argument index of the destination, or -1
    }

    private readonly record struct Point(byte[] Member, double Score, double Lon, double Lat, double Dist);

    private static void Search(CommandContext s, int keyIndex, Mode mode)
    {
        Request? request = null;
        string? error = null;
        bool exists = false;
        List<Point> points = [];
        // Parsing runs inside the read: FROMMEMBER and BYMEMBER look their member up in the set as they come.
        var op = ZOp(z =>
        {
            exists = true;
            error = Parse(s, mode, z, out request);
            points = error is null ? Find(z, request!) : [];
            return false;
        }, missing: () =>
        {
            exists = false;
            error = Parse(s, mode, null, out request);
        });
        if (!CollectionCommand.Run(s, s.Arg(keyIndex), op, write: false)) return;
        if (error is not null) { s.WriteError(error); return; }
        var r = request!;
        if (r.StoreKey < 0) s.PropagateNothing(); // GEORADIUS without STORE changes nothing: not for the AOF
        if (!exists || (points.Count == 0 && r.StoreKey < 0))
        {
            if (r.StoreKey >= 0) SortedSetCommands.Store(s, s.Arg(r.StoreKey), [], StoreEvent(s));
            else s.Writer.WriteArrayHeader(0);
            return;
        }
        int returned = r.Count == 0 || points.Count < r.Count ? points.Count : (int)r.Count;
        var found = points.ToArray();
        if (r.Sort != Order.None)
        {
            Comparison<Point> compare = r.Sort == Order.Asc ? (a, b) => a.Dist.CompareTo(b.Dist) : (a, b) => b.Dist.CompareTo(a.Dist);
            if (returned == found.Length) StableSort(found, compare);
            else PartialQuickSort.Sort(found, Compare3(compare), returned);
        }
        double conversion = r.Shape.Conversion;
        if (r.StoreKey >= 0)
        {
            var stored = new List<(byte[] Member, double Score)>(returned);
            var seen = new HashSet<byte[]>(ByteArrayComparer.Instance);
            for (int i = 0; i < returned; i++)
                if (seen.Add(found[i].Member)) stored.Add((found[i].Member, r.StoreDist ? found[i].Dist / conversion : found[i].Score));
            stored.Sort(SortedSetObject.Compare);
            SortedSetCommands.Store(s, s.Arg(r.StoreKey), stored, StoreEvent(s));
            return;
        }
        int options = (r.WithDist ? 1 : 0) + (r.WithHash ? 1 : 0) + (r.WithCoord ? 1 : 0);
        s.Writer.WriteArrayHeader(returned);
        for (int i = 0; i < returned; i++)
        {
            var p = found[i];
            if (options > 0) s.Writer.WriteArrayHeader(options + 1);
            s.Writer.WriteBulkString(p.Member);
            if (r.WithDist) s.Writer.WriteBulkString(FixedFormat.Distance(p.Dist / conversion));
            if (r.WithHash) s.Writer.WriteInteger((long)p.Score);
            if (r.WithCoord)
            {
                s.Writer.WriteArrayHeader(2);
                WriteCoordinate(s, p.Lon);
                WriteCoordinate(s, p.Lat);
            }
        }
    }

    /// <summary>Parses a search's arguments in Redis's order (z is null when the key is missing); null, or the error.</summary>
    private static string? Parse(CommandContext s, Mode mode, SortedSetObject? z, out Request? request)
    {
        var r = request = new Request();
        var shape = r.Shape;
        int baseArgs;
        string? error;
        if (mode.HasFlag(Mode.Coords))
        {
            baseArgs = 6;
            if ((error = ParseLonLat(s, 2, out shape.Lon, out shape.Lat)) is not null) return error;
            if ((error = ParseRadius(s, 4, shape)) is not null) return error;
        }
        else if (mode.HasFlag(Mode.Member))
        {
            // Without a key the member and radius are not looked at: only the options decide between the replies.
            baseArgs = 5;
            if (z is not null)
            {
                if (!z.TryGetScore(s.Arg(2), out double score)) return NotMember;
                (shape.Lon, shape.Lat) = GeoHash.DecodeScore(score);
                if ((error = ParseRadius(s, 3, shape)) is not null) return error;
            }
        }
        else
        {
            baseArgs = 2;
            if (mode.HasFlag(Mode.SearchStore))
            {
                baseArgs = 3;
                r.StoreKey = 1;
            }
        }

        bool search = mode.HasFlag(Mode.Search), canStore = !mode.HasFlag(Mode.NoStore) && !search;
        bool fromMember = false, fromLonLat = false, byRadius = false, byBox = false;
        for (int j = baseArgs; j < s.Argc; j++)
        {
            bool one = j + 1 < s.Argc, two = j + 2 < s.Argc, three = j + 3 < s.Argc;
            if (s.ArgEquals(j, "WITHDIST"u8)) r.WithDist = true;
            else if (s.ArgEquals(j, "WITHHASH"u8)) r.WithHash = true;
            else if (s.ArgEquals(j, "WITHCOORD"u8)) r.WithCoord = true;
            else if (s.ArgEquals(j, "ANY"u8)) r.Any = true;
            else if (s.ArgEquals(j, "ASC"u8)) r.Sort = Order.Asc;
            else if (s.ArgEquals(j, "DESC"u8)) r.Sort = Order.Desc;
            else if (s.ArgEquals(j, "COUNT"u8) && one)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(j + 1), out r.Count)) return StringFunctions.NotInteger;
                if (r.Count <= 0) return "ERR COUNT must be > 0";
                j++;
            }
            else if (s.ArgEquals(j, "STORE"u8) && one && canStore) { r.StoreKey = ++j; r.StoreDist = false; }
            else if (s.ArgEquals(j, "STOREDIST"u8) && one && canStore) { r.StoreKey = ++j; r.StoreDist = true; }
            else if (s.ArgEquals(j, "STOREDIST"u8) && search && mode.HasFlag(Mode.SearchStore)) r.StoreDist = true;
            else if (s.ArgEquals(j, "FROMMEMBER"u8) && one && search && !fromLonLat)
            {
                if (z is not null)
                {
                    if (!z.TryGetScore(s.Arg(j + 1), out double score)) return NotMember;
                    (shape.Lon, shape.Lat) = GeoHash.DecodeScore(score);
                }
                fromMember = true;
                j++;
            }
            else if (s.ArgEquals(j, "FROMLONLAT"u8) && two && search && !fromMember)
            {
                if ((error = ParseLonLat(s, j + 1, out shape.Lon, out shape.Lat)) is not null) return error;
                fromLonLat = true;
                j += 2;
            }
            else if (s.ArgEquals(j, "BYRADIUS"u8) && two && search && !byBox)
            {
                if ((error = ParseRadius(s, j + 1, shape)) is not null) return error;
                byRadius = true;
                j += 2;
            }
            else if (s.ArgEquals(j, "BYBOX"u8) && three && search && !byRadius)
            {
                if ((error = ParseBox(s, j + 1, shape)) is not null) return error;
                byBox = true;
                j += 3;
            }
            else return Syntax;
        }

        if (r.StoreKey >= 0 && (r.WithDist || r.WithHash || r.WithCoord))
            return $"ERR {(mode.HasFlag(Mode.SearchStore) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS")} is not compatible with WITHDIST, WITHHASH and WITHCOORD options";
        if (search && !(fromMember || fromLonLat)) return $"ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for {s.ArgString(0)}";
        if (search && !(byRadius || byBox)) return $"ERR exactly one of BYRADIUS and BYBOX can be specified for {s.ArgString(0)}";
        if (r.Any && r.Count == 0) return "ERR the ANY argument requires COUNT argument";
        // COUNT without an order means the nearest ones (not with ANY, which takes the first found).
        if (r.Count != 0 && r.Sort == Order.None && !r.Any) r.Sort = Order.Asc;
        return null;
    }

    /// <summary>The members inside the shape, cell by cell in the order of GeoHash.SearchCells, each cell in score
    /// order; with ANY, stops once COUNT are found.</summary>
    /// <summary>The keyspace event of a stored search, as Redis names it.</summary>
    private static ReadOnlySpan<byte> StoreEvent(CommandContext s) => s.ArgEquals(0, "GEOSEARCHSTORE"u8) ? "geosearchstore"u8 : "georadiusstore"u8;

    private static List<Point> Find(SortedSetObject z, Request r)
    {
        var cells = GeoHash.SearchCells(r.Shape, out _);
        var points = new List<Point>();
        var cellMembers = new List<(byte[] Member, double Score)>();
        long limit = r.Any ? r.Count : 0;
        int lastScanned = 0; // as Redis: 0 also means none, so the centre is never compared with its north neighbour
        for (int i = 0; i < cells.Length; i++)
        {
            if (cells[i].IsZero) continue;
            if (lastScanned != 0 && cells[i] == cells[lastScanned]) continue; // huge radii: a neighbour can repeat
            if (limit != 0 && points.Count >= limit) break;
            var (min, max) = GeoHash.ScoreRange(cells[i]);
            var (first, last) = z.ScoreRange(new ScoreBound(min, Exclusive: false), new ScoreBound(max, Exclusive: true));
            if (first <= last)
            {
                cellMembers.Clear();
                z.CopyRange(first, last - first + 1, backward: false, cellMembers);
                foreach (var (member, score) in cellMembers)
                {
                    if (GeoHash.Within(r.Shape, score, out double lon, out double lat, out double dist))
                        points.Add(new Point(member, score, lon, lat, dist));
                    if (limit != 0 && points.Count >= limit) break;
                }
            }
            lastScanned = i;
        }
        return points;
    }

    // ---------------------------------------------------------------------------------------------
    // Ordering
    // ---------------------------------------------------------------------------------------------

    /// <summary>A stable sort (glibc's qsort is a merge sort: equal distances keep the order they were found in).</summary>
    private static void StableSort(Point[] items, Comparison<Point> compare)
    {
        var indexed = new (Point P, int I)[items.Length];
        for (int i = 0; i < items.Length; i++) indexed[i] = (items[i], i);
        Array.Sort(indexed, (a, b) => compare(a.P, b.P) is var c && c != 0 ? c : a.I.CompareTo(b.I));
        for (int i = 0; i < items.Length; i++) items[i] = indexed[i].P;
    }

    /// <summary>The comparison as -1, 0 or 1.</summary>
    private static Comparison<Point> Compare3(Comparison<Point> compare) => (a, b) => Math.Sign(compare(a, b));

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    // Sorted sets whose scores are 52-bit geohashes. GEORADIUS and GEORADIUSBYMEMBER name their STORE key anywhere after the
    // fixed arguments: they lock every argument from the key on (a superset of their keys).
    /// <summary>GEOADD, GEODIST, GEOHASH, GEOPOS, GEORADIUS, GEORADIUS_RO, GEORADIUSBYMEMBER, GEORADIUSBYMEMBER_RO, GEOSEARCH,
    /// GEOSEARCHSTORE.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        var geoStored = new KeyRange(1, -1, 1);
        return
        [
            new()
            {
                Name = "geoadd", Arity = -5, Flags = Write | DenyOom, Acl = A.Geo, Keys = k1,
                Group = "geo", Since = "3.2.0", Summary = "Adds one or more members to a geospatial index. The key is created if it doesn't exist.",
                Complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
                LocksKeysExclusively = true, Handler = Add,
            },
            new()
            {
                Name = "geodist", Arity = -4, Flags = ReadOnly, Acl = A.Geo, Keys = k1,
                Group = "geo", Since = "3.2.0", Summary = "Returns the distance between two members of a geospatial index.",
                Handler = Dist,
            },
            new()
            {
                Name = "geohash", Arity = -2, Flags = ReadOnly, Acl = A.Geo, Keys = k1,
                Group = "geo", Since = "3.2.0", Summary = "Returns members from a geospatial index as geohash strings.",
                Complexity = "O(1) for each member requested.",
                Handler = Hash,
            },
            new()
            {
                Name = "geopos", Arity = -2, Flags = ReadOnly, Acl = A.Geo, Keys = k1,
                Group = "geo", Since = "3.2.0", Summary = "Returns the longitude and latitude of members from a geospatial index.",
                Complexity = "O(1) for each member requested.",
                Handler = Pos,
            },
            new()
            {
                Name = "georadius", Arity = -6, Flags = Write | DenyOom | MovableKeys, Acl = A.Geo, Keys = geoStored,
                Group = "geo", Since = "3.2.0",
                Summary = "Queries a geospatial index for members within a distance from a coordinate, optionally stores the result.",
                Complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and " +
                    "radius and M is the number of items inside the index.",
                LocksKeysExclusively = true, Handler = Radius,
            },
            new()
            {
                Name = "georadius_ro", Arity = -6, Flags = ReadOnly, Acl = A.Geo, Keys = k1,
                Group = "geo", Since = "3.2.10", Summary = "Returns members from a geospatial index that are within a distance from a coordinate.",
                Complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and " +
                    "radius and M is the number of items inside the index.",
                Handler = RadiusRo,
            },
            new()
            {
                Name = "georadiusbymember", Arity = -5, Flags = Write | DenyOom | MovableKeys, Acl = A.Geo, Keys = geoStored,
                Group = "geo", Since = "3.2.0",
                Summary = "Queries a geospatial index for members within a distance from a member, optionally stores the result.",
                Complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and " +
                    "radius and M is the number of items inside the index.",
                LocksKeysExclusively = true, Handler = RadiusByMember,
            },
            new()
            {
                Name = "georadiusbymember_ro", Arity = -5, Flags = ReadOnly, Acl = A.Geo, Keys = k1,
                Group = "geo", Since = "3.2.10", Summary = "Returns members from a geospatial index that are within a distance from a member.",
                Complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and " +
                    "radius and M is the number of items inside the index.",
                Handler = RadiusByMemberRo,
            },
            new()
            {
                Name = "geosearch", Arity = -7, Flags = ReadOnly, Acl = A.Geo, Keys = k1,
                Group = "geo", Since = "6.2.0", Summary = "Queries a geospatial index for members inside an area of a box or a circle.",
                Complexity = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the " +
                    "filter and M is the number of items inside the shape",
                Handler = GeoSearch,
            },
            new()
            {
                Name = "geosearchstore", Arity = -8, Flags = Write | DenyOom, Acl = A.Geo, Keys = new KeyRange(1, 2, 1),
                Group = "geo", Since = "6.2.0",
                Summary = "Queries a geospatial index for members inside an area of a box or a circle, optionally stores the result.",
                Complexity = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the " +
                    "filter and M is the number of items inside the shape",
                LocksKeysExclusively = true, Handler = GeoSearchStore,
            },
        ];
    }
}
