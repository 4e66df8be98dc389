// LatencySparkline: LATENCY GRAPH's drawing, laid out as Redis 7.2 draws it: a header ("<event> - high H ms, low L ms
// (all time high M ms)"), 80 dashes, then the samples oldest first, 80 columns per block (blocks separated by an empty
// line), each block 4 rows high, filled: every column's height is its latency's place between the lowest and highest
// sample in 12 steps (3 per row), the row holding the top drawn '_', 'o' or '#' and the rows under it '|'. Under each
// block a blank line, then each sample's age ("12s", "3m", "2h", "1d") written downwards in its column.
// Invariants: pure (the caller passes the clock); every line ends in '\n'; a block's lines are as wide as its samples.
using System.Text;

namespace Garnet.server.Metrics;

public static class LatencySparkline
{
    public const int Columns = 80;
    private const int Rows = 4;
    private const string Fill = "_o#"; // the three marks of a row, lowest first
    private const int Steps = Rows * 3;

    /// <summary>The graph of evt's samples (oldest first, at least one) as seen at unix time now.</summary>
    public static string Render(string evt, IReadOnlyList<LatencyMonitor.Sample> samples, long allTimeMax, long now)
    {
        long min = samples.Min(x => x.Ms), max = samples.Max(x => x.Ms);
        var sb = new StringBuilder();
        sb.Append(evt).Append(" - high ").Append(max).Append(" ms, low ").Append(min).Append(" ms (all time high ")
          .Append(allTimeMax).Append(" ms)\n");
        sb.Append('-', Columns).Append('\n');
        for (int from = 0; from < samples.Count; from += Columns)
        {
            if (from > 0) sb.Append('\n');
            int len = Math.Min(Columns, samples.Count - from);
            Block(sb, samples, from, len, min, max, now);
        }
        return sb.ToString();
    }

    private static void Block(StringBuilder sb, IReadOnlyList<LatencyMonitor.Sample> samples, int from, int len, long min, long max, long now)
    {
        double range = max - min == 0 ? 1 : max - min;
        var steps = new int[len];
        var labels = new string[len];
        for (int j = 0; j < len; j++)
        {
            var x = samples[from + j];
            steps[j] = Math.Clamp((int)((x.Ms - min) * (double)Steps / range), 0, Steps - 1);
            labels[j] = Age(now - x.UnixSeconds);
        }
        for (int row = 0; row < Rows; row++)
        {
            int floor = (Rows - row - 1) * 3; // the lowest step this row draws a mark for
            for (int j = 0; j < len; j++)
            {
                int mark = steps[j] - floor;
                sb.Append(mark < 0 ? ' ' : mark < Fill.Length ? Fill[mark] : '|');
            }
            sb.Append('\n');
        }
        sb.Append(' ', len).Append('\n'); // the margin above the labels
        int height = labels.Max(l => l.Length);
        for (int i = 0; i < height; i++)
        {
            foreach (var l in labels) sb.Append(i < l.Length ? l[i] : ' ');
            sb.Append('\n');
        }
    }

    /// <summary>How long ago, as Redis labels it: seconds under a minute, then minutes, hours, days.</summary>
    public static string Age(long seconds) =>
        seconds < 60 ? seconds + "s" : seconds < 3600 ? seconds / 60 + "m" : seconds < 86400 ? seconds / 3600 + "h" : seconds / 86400 + "d";
}
