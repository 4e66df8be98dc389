// GeoHash: the geohash arithmetic of Redis's GEO commands (geohash.c, geohash_helper.c and the search in geo.c), written
// anew so that a point gets the same 52-bit score and a search the same areas, members and distances as in Redis 7.2.
// Invariants:
//  - A position is a 26-step hash: 26 latitude bits (range ±85.05112878) interleaved with 26 longitude bits (±180),
//    latitude in the even bit positions; the score of a member is that 52-bit integer as a double (exact below 2^53).
//  - A score is read back as C's (uint64_t) cast of the double reads it (x86-64: negative values wrap, values beyond
//    2^64 or infinities give 0 or 2^63), then decoded to the centre of its cell clamped to the ranges above, so any
//    zset score decodes to some position, as in Redis.
//  - A search covers the centre cell and its 8 neighbours at the step estimated from the radius (one step coarser when
//    a neighbour does not reach the bounding box), drops neighbours outside the bounding box, and scans each cell as
//    the score range [cell << shift, (cell + 1) << shift); the same range twice in a row is scanned once.
//  - Every distance is the haversine with Earth radius 6372797.560856 m, evaluated in Redis's operation order (the
//    same libm functions give the same bits).
namespace Garnet.server.Objects;

public static class GeoHash
{
    public const int MaxStep = 26;
    public const double LatMin = -85.05112878, LatMax = 85.05112878, LonMin = -180, LonMax = 180;
    public const double EarthRadius = 6372797.560856;
    private const double MercatorMax = 20037726.37;
    private const double DegreesToRadians = Math.PI / 180.0;

    /// <summary>A hash of step (1..32) bits per axis; Zero (no bits, step 0) marks a neighbour left out of a search.</summary>
    public readonly record struct Cell(ulong Bits, int Step)
    {
        public bool IsZero => Bits == 0 && Step == 0;
    }

    /// <summary>The longitude and latitude ranges a cell covers.</summary>
    public readonly record struct Area(double LonMin, double LonMax, double LatMin, double LatMax);

    /// <summary>A search shape: a circle of Radius or a Width x Height box, in units of Conversion meters, around (Lon, Lat).</summary>
    public sealed class Shape
    {
        public double Lon, Lat;
        public bool IsBox;
        public double Radius, Width, Height;
        public double Conversion = 1;
    }

    // ---------------------------------------------------------------------------------------------
    // Bits
    // ---------------------------------------------------------------------------------------------

    /// <summary>Spreads the 32 bits of v to the even positions of a 64-bit word.</summary>
    private static ulong Spread(uint v)
    {
        ulong x = v;
        x = (x | (x << 16)) & 0x0000FFFF0000FFFFUL;
        x = (x | (x << 8)) & 0x00FF00FF00FF00FFUL;
        x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FUL;
        x = (x | (x << 2)) & 0x3333333333333333UL;
        x = (x | (x << 1)) & 0x5555555555555555UL;
        return x;
    }

    /// <summary>Gathers the even bits of x into 32 bits (the inverse of Spread).</summary>
    private static uint Gather(ulong x)
    {
        x &= 0x5555555555555555UL;
        x = (x | (x >> 1)) & 0x3333333333333333UL;
        x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FUL;
        x = (x | (x >> 4)) & 0x00FF00FF00FF00FFUL;
        x = (x | (x >> 8)) & 0x0000FFFF0000FFFFUL;
        x = (x | (x >> 16)) & 0x00000000FFFFFFFFUL;
        return (uint)x;
    }

    /// <summary>C's (uint32_t) of a non-negative double below 2^32 on x86-64 (truncation).</summary>
    private static uint ToUInt32(double v) => (uint)(long)v;

    /// <summary>C's (uint64_t) cast of a double as x86-64 compilers emit it: cvttsd2si below 2^63 (out of range or NaN
    /// gives 2^63), else cvttsd2si of v - 2^63 with the top bit flipped.</summary>
    public static ulong CastToUInt64(double v)
    {
        const double twoTo63 = 9223372036854775808.0;
        if (v < twoTo63 || double.IsNaN(v)) return (ulong)Truncate(v);
        return (ulong)Truncate(v - twoTo63) ^ 0x8000000000000000UL;

        static long Truncate(double d) => d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? (long)d : long.MinValue;
    }

    // ---------------------------------------------------------------------------------------------
    // Encode and decode
    // ---------------------------------------------------------------------------------------------

    /// <summary>The cell of (lon, lat) at step over the given ranges; false outside them (or outside Redis's limits).</summary>
    public static bool TryEncode(double lonMin, double lonMax, double latMin, double latMax, double lon, double lat, int step, out Cell cell)
    {
        cell = default;
        if (step is < 1 or > 32) return false;
        if (lon > LonMax || lon < LonMin || lat > LatMax || lat < LatMin) return false;
        if (lat < latMin || lat > latMax || lon < lonMin || lon > lonMax) return false;
        double latOffset = (lat - latMin) / (latMax - latMin);
        double lonOffset = (lon - lonMin) / (lonMax - lonMin);
        latOffset *= (double)(1UL << step);
        lonOffset *= (double)(1UL << step);
        cell = new Cell(Spread(ToUInt32(latOffset)) | (Spread(ToUInt32(lonOffset)) << 1), step);
        return true;
    }

    public static bool TryEncode(double lon, double lat, int step, out Cell cell) => TryEncode(LonMin, LonMax, LatMin, LatMax, lon, lat, step, out cell);

    /// <summary>The sorted set score of a valid position (a 52-bit integer).</summary>
    public static ulong Score(double lon, double lat)
    {
        TryEncode(lon, lat, MaxStep, out var cell);
        return Align52(cell);
    }

    /// <summary>The cell's bits shifted to the top of 52 bits.</summary>
    public static ulong Align52(Cell cell) => cell.Bits << (52 - cell.Step * 2);

    public static Area Decode(Cell cell) => Decode(LonMin, LonMax, LatMin, LatMax, cell);

    public static Area Decode(double lonMin, double lonMax, double latMin, double latMax, Cell cell)
    {
        uint latBits = Gather(cell.Bits), lonBits = Gather(cell.Bits >> 1);
        double latScale = latMax - latMin, lonScale = lonMax - lonMin;
        double cells = (double)(1UL << cell.Step);
        return new Area(
            lonMin + (lonBits * 1.0 / cells) * lonScale,
            lonMin + (unchecked(lonBits + 1u) * 1.0 / cells) * lonScale,
            latMin + (latBits * 1.0 / cells) * latScale,
            latMin + (unchecked(latBits + 1u) * 1.0 / cells) * latScale);
    }

    /// <summary>The position a sorted set score stands for: the centre of its cell, clamped to the valid ranges.</summary>
    public static (double Lon, double Lat) DecodeScore(double score)
    {
        var area = Decode(new Cell(CastToUInt64(score), MaxStep));
        double lon = Math.Clamp((area.LonMin + area.LonMax) / 2, LonMin, LonMax);
        double lat = Math.Clamp((area.LatMin + area.LatMax) / 2, LatMin, LatMax);
        return (lon, lat);
    }

    /// <summary>The standard 11-character geohash of a score (re-encoded over latitude ±90; the 11th character is '0').</summary>
    public static string ToBase32(double score)
    {
        const string alphabet = "0123456789bcdefghjkmnpqrstuvwxyz";
        var (lon, lat) = DecodeScore(score);
        TryEncode(-180, 180, -90, 90, lon, lat, MaxStep, out var cell);
        Span<char> text = stackalloc char[11];
        for (int i = 0; i < 10; i++) text[i] = alphabet[(int)((cell.Bits >> (52 - (i + 1) * 5)) & 0x1f)];
        text[10] = '0';
        return new string(text);
    }

    // ---------------------------------------------------------------------------------------------
    // Neighbours
    // ---------------------------------------------------------------------------------------------

    /// <summary>The cell one step east (d &gt; 0) or west (d &lt; 0), wrapping around.</summary>
    private static Cell MoveLon(Cell c, int d) => d == 0 ? c : new Cell(Move(c.Bits, c.Step, 0xAAAAAAAAAAAAAAAAUL, d), c.Step);

    /// <summary>The cell one step north (d &gt; 0) or south (d &lt; 0), wrapping around.</summary>
    private static Cell MoveLat(Cell c, int d) => d == 0 ? c : new Cell(Move(c.Bits, c.Step, 0x5555555555555555UL, d), c.Step);

    /// <summary>Adds ±1 to the axis held in the bit positions of mask: the other axis's bits are filled with ones (or
    /// zeros) so that the carry (or borrow) runs through them.</summary>
    private static ulong Move(ulong bits, int step, ulong mask, int d)
    {
        ulong axis = bits & mask, other = bits & ~mask;
        ulong fill = ~mask >> (64 - step * 2);      // the other axis's positions within the hash
        if (d > 0) axis += fill + 1;
        else axis = (axis | fill) - (fill + 1);
        axis &= mask >> (64 - step * 2);
        return axis | other;
    }

    /// <summary>The 9 cells of a search: the centre, then N, S, E, W, NE, NW, SE, SW; Zero for those left out.</summary>
    public static Cell[] SearchCells(Shape shape, out double[] bounds)
    {
        bounds = BoundingBox(shape);
        double minLon = bounds[0], minLat = bounds[1], maxLon = bounds[2], maxLat = bounds[3];
        double radius = shape.IsBox
            ? Math.Sqrt((shape.Width / 2) * (shape.Width / 2) + (shape.Height / 2) * (shape.Height / 2))
            : shape.Radius;
        radius *= shape.Conversion;
        int steps = EstimateSteps(radius, shape.Lat);
        var cells = Around(shape, steps, out var area);
        // One step coarser when a neighbour does not reach the bounding box (the estimate can be too fine near a
        // cell's edge).
        bool coarser = Decode(cells[1]).LatMax < maxLat || Decode(cells[2]).LatMin > minLat
            || Decode(cells[3]).LonMax < maxLon || Decode(cells[4]).LonMin > minLon;
        if (steps > 1 && coarser)
        {
            steps--;
            cells = Around(shape, steps, out area);
        }
        if (steps >= 2)
        {
            if (area.LatMin < minLat) cells[2] = cells[8] = cells[7] = default;   // south
            if (area.LatMax > maxLat) cells[1] = cells[5] = cells[6] = default;   // north
            if (area.LonMin < minLon) cells[4] = cells[8] = cells[6] = default;   // west
            if (area.LonMax > maxLon) cells[3] = cells[7] = cells[5] = default;   // east
        }
        return cells;
    }

    private static Cell[] Around(Shape shape, int steps, out Area area)
    {
        TryEncode(shape.Lon, shape.Lat, steps, out var c);
        area = Decode(c);
        return
        [
            c,
            MoveLat(c, 1), MoveLat(c, -1), MoveLon(c, 1), MoveLon(c, -1),
            MoveLat(MoveLon(c, 1), 1), MoveLat(MoveLon(c, -1), 1),
            MoveLat(MoveLon(c, 1), -1), MoveLat(MoveLon(c, -1), -1),
        ];
    }

    /// <summary>The step (bits per axis) whose cells are about as large as the radius, coarser towards the poles.</summary>
    public static int EstimateSteps(double rangeMeters, double lat)
    {
        if (rangeMeters == 0) return MaxStep;
        int step = 1;
        while (rangeMeters < MercatorMax)
        {
            rangeMeters *= 2;
            step++;
        }
        step -= 2;
        if (lat > 66 || lat < -66)
        {
            step--;
            if (lat > 80 || lat < -80) step--;
        }
        return Math.Clamp(step, 1, MaxStep);
    }

    /// <summary>The shape's bounding box: min lon, min lat, max lon, max lat (the wider edge's longitudes: the one nearer
    /// the equator).</summary>
    public static double[] BoundingBox(Shape shape)
    {
        double height = shape.Conversion * (shape.IsBox ? shape.Height / 2 : shape.Radius);
        double width = shape.Conversion * (shape.IsBox ? shape.Width / 2 : shape.Radius);
        double latDelta = ToDegrees(height / EarthRadius);
        double lonDeltaTop = ToDegrees(width / EarthRadius / Math.Cos(ToRadians(shape.Lat + latDelta)));
        double lonDeltaBottom = ToDegrees(width / EarthRadius / Math.Cos(ToRadians(shape.Lat - latDelta)));
        double lonDelta = shape.Lat < 0 ? lonDeltaBottom : lonDeltaTop;
        return [shape.Lon - lonDelta, shape.Lat - latDelta, shape.Lon + lonDelta, shape.Lat + latDelta];
    }

    /// <summary>The score range [min, max) of the members inside a cell.</summary>
    public static (double Min, double Max) ScoreRange(Cell cell) =>
        (Align52(cell), Align52(cell with { Bits = cell.Bits + 1 }));

    // ---------------------------------------------------------------------------------------------
    // Distances
    // ---------------------------------------------------------------------------------------------

    private static double ToRadians(double degrees) => degrees * DegreesToRadians;
    private static double ToDegrees(double radians) => radians / DegreesToRadians;

    /// <summary>The distance along a meridian between two latitudes.</summary>
    public static double LatDistance(double lat1, double lat2) => EarthRadius * Math.Abs(ToRadians(lat2) - ToRadians(lat1));

    /// <summary>The haversine great-circle distance in meters.</summary>
    public static double Distance(double lon1, double lat1, double lon2, double lat2)
    {
        double lon1r = ToRadians(lon1), lon2r = ToRadians(lon2);
        double v = Math.Sin((lon2r - lon1r) / 2);
        if (v == 0.0) return LatDistance(lat1, lat2);
        double lat1r = ToRadians(lat1), lat2r = ToRadians(lat2);
        double u = Math.Sin((lat2r - lat1r) / 2);
        double a = u * u + Math.Cos(lat1r) * Math.Cos(lat2r) * v * v;
        return 2.0 * EarthRadius * Math.Asin(Math.Sqrt(a));
    }

    /// <summary>Whether the point a score stands for lies in the shape; its position and distance from the centre.</summary>
    public static bool Within(Shape shape, double score, out double lon, out double lat, out double distance)
    {
        (lon, lat) = DecodeScore(score);
        distance = 0;
        if (!shape.IsBox)
        {
            distance = Distance(shape.Lon, shape.Lat, lon, lat);
            return distance <= shape.Radius * shape.Conversion;
        }
        // The latitude condition first (cheaper), then the longitude distance along the point's parallel.
        double width = shape.Width * shape.Conversion, height = shape.Height * shape.Conversion;
        if (LatDistance(lat, shape.Lat) > height / 2) return false;
        if (Distance(lon, lat, shape.Lon, lat) > width / 2) return false;
        distance = Distance(shape.Lon, shape.Lat, lon, lat);
        return true;
    }
}
