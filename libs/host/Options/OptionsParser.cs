// OptionsParser: command line (CommandLineParser) + optional config file -> GarnetServerOptions.
using CommandLine;

namespace Garnet.Options;

public static class OptionsParser
{
    /// <summary>
    /// Parses args. Returns null when the program should exit (help/version printed, or an error with exitCode 1).
    /// </summary>
    public static GarnetServerOptions? Parse(string[] args, TextWriter output, out int exitCode, out List<string> ignoredConfig, TextWriter? errors = null)
    {
        exitCode = 0;
        ignoredConfig = [];
        using var parser = new Parser(with =>
        {
            with.HelpWriter = null;
            with.CaseSensitive = false;
            with.CaseInsensitiveEnumValues = true;
            with.AutoVersion = true;
        });
        var result = parser.ParseArguments<GarnetServerOptions>(args);
        if (result is NotParsed<GarnetServerOptions> notParsed)
        {
            bool helpOrVersion = notParsed.Errors.All(e => e.Tag is ErrorType.HelpRequestedError or ErrorType.VersionRequestedError);
            exitCode = helpOrVersion ? 0 : 1;
            var text = CommandLine.Text.HelpText.AutoBuild(result, h => { h.AddDashesToOption = true; h.Heading = "GarnetServer (independent implementation of a Redis-protocol cache-store)"; h.Copyright = ""; return h; }, e => e);
            if (notParsed.Errors.Any(e => e.Tag == ErrorType.VersionRequestedError)) output.WriteLine(typeof(OptionsParser).Assembly.GetName().Version?.ToString(3));
            else (helpOrVersion ? output : errors ?? output).WriteLine(text);
            return null;
        }
        var options = result.Value;
        if (options.ConfigFile is not null) ignoredConfig = ConfigFileLoader.Load(options.ConfigFile, options);
        return options;
    }
}
