// ProgressBar: renders "[#####.....]  52.0%  532,480/1,024,000 keys  1.2M keys/s  ETA 0:03" for the load phase.
// Invariants: on a terminal the line is redrawn in place (carriage return) at most 5 times a second; when the
// output is redirected (a file, a test) it prints a plain line at most every 5 seconds, so logs stay short.
// Finish always prints the final state on its own line.
using System.Globalization;

namespace Resp.benchmark;

public sealed class ProgressBar(TextWriter output, bool interactive, string unit)
{
    private const int Width = 30;
    private long _lastPrintMs = -1;
    private int _lastLength;

    public void Update(long done, long total, double seconds)
    {
        long now = Environment.TickCount64;
        long interval = interactive ? 200 : 5000;
        if (_lastPrintMs >= 0 && now - _lastPrintMs < interval) return;
        if (_lastPrintMs < 0 && !interactive) { _lastPrintMs = now; return; }
        _lastPrintMs = now;
        Print(done, total, seconds, final: false);
    }

    public void Finish(long done, long total, double seconds) => Print(done, total, seconds, final: true);

    public static string Render(long done, long total, double seconds, string unit)
    {
        double fraction = total <= 0 ? 1 : Math.Clamp((double)done / total, 0, 1);
        int filled = (int)Math.Round(fraction * Width);
        double rate = seconds > 0 ? done / seconds : 0;
        string eta = rate > 0 && done < total ? FormatDuration((total - done) / rate) : "0:00";
        var ci = CultureInfo.InvariantCulture;
        return string.Create(ci,
            $"[{new string('#', filled)}{new string('.', Width - filled)}] {fraction * 100,5:F1}%  {done:N0}/{total:N0} {unit}  {Table.Rate(rate)} {unit}/s  ETA {eta}");
    }

    private void Print(long done, long total, double seconds, bool final)
    {
        string line = Render(done, total, seconds, unit);
        if (interactive)
        {
            output.Write('\r' + line + (line.Length < _lastLength ? new string(' ', _lastLength - line.Length) : ""));
            _lastLength = line.Length;
            if (final) output.WriteLine();
        }
        else
        {
            output.WriteLine(line);
        }
        output.Flush();
    }

    public static string FormatDuration(double seconds)
    {
        if (double.IsNaN(seconds) || double.IsInfinity(seconds) || seconds > 99 * 3600) return "--:--";
        var t = TimeSpan.FromSeconds(Math.Ceiling(seconds));
        return t.TotalHours >= 1
            ? string.Create(CultureInfo.InvariantCulture, $"{(int)t.TotalHours}:{t.Minutes:00}:{t.Seconds:00}")
            : string.Create(CultureInfo.InvariantCulture, $"{t.Minutes}:{t.Seconds:00}");
    }
}
