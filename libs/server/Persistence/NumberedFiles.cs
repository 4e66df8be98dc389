// NumberedFiles: the files named <prefix><n><suffix> in a directory (checkpoint.<n>.rdb, appendonly.<n>.aof), with their
// numbers; n is a positive integer. Other names, such as *.tmp or *.unreadable, are not listed.
namespace Garnet.server.Persistence;

public static class NumberedFiles
{
    /// <summary>The matching files, in ascending order of their numbers.</summary>
    public static List<(string path, long sequence)> In(string dir, string prefix, string suffix)
    {
        var found = new List<(string, long)>();
        if (!Directory.Exists(dir)) return found;
        foreach (var f in Directory.EnumerateFiles(dir, prefix + "*" + suffix))
        {
            string name = Path.GetFileName(f);
            if (name.Length <= prefix.Length + suffix.Length) continue;
            if (long.TryParse(name[prefix.Length..^suffix.Length], out long seq) && seq > 0) found.Add((f, seq));
        }
        return found.OrderBy(x => x.Item2).ToList();
    }
}
