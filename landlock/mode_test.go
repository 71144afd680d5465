package landlock

import "testing"

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr string
	}{
		{in: "", want: ModeAuto},
		{in: "auto", want: ModeAuto},
		{in: "require", want: ModeRequire},
		{in: "off", want: ModeOff},
		{in: "x", wantErr: `--landlock "x": must be auto, require or off`},
		{in: "Auto", wantErr: `--landlock "Auto": must be auto, require or off`},
		{in: " off", wantErr: `--landlock " off": must be auto, require or off`},
	}
	for _, tt := range tests {
		got, err := ParseMode(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseMode(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
