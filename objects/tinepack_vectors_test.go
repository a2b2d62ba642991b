package objects

import (
	"encoding/base64"
	"testing"
)

// packRejectVectors are the pack.inspect reject cases with inline frames of
// the conformance families 28-pack, 16-bounds and 99-repair (SPEC §2.8,
// §1.6), transcribed with the reason each must report.
var packRejectVectors = []struct {
	id     string
	reason Reason
	b64    string
}{
	{"pack.inspect.bad-magic", Reason("pack.bad-magic"),
		"VElORVBBQ0syAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},
	{"pack.inspect.checksum-mismatch", Reason("pack.checksum-mismatch"),
		"VElORVBBQ0szAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAeNqrVspPykpNLilWsoqO1VEqzkjMyckvh3DKUouK" +
			"M/PzlKwMawEN1Q1W"},
	{"pack.inspect.duplicate-object-ids", Reason("pack.duplicate-ids"),
		"VElORVBBQ0szAJ/4UEawZONELmcQUYTzCRfvE0hUWBPlwEOlElVVODiteNrtU8tupDAQ/Bef52CMjTHSHlYkGoEWRosgjIly" +
			"wA+CeUZhMswQ5d9jLvsLK6321K3uVlWpSv0JZtFpeVlA8PwJVH2pQQD0PR7EmF6r4/BR3SMvGt82gbD5FcYbR+0gykdz6h6X" +
			"aMqIPBbmZOJBjU8fKoxZOC2GI7apMPKScDV1SVZ1zho+3q7c7FjxIlDkSdS2SVeg05g4tt444pBv0ZqUT32VS9u3Q7IVKD1m" +
			"XTr+XpOxcE656viY3JNjZaqH/sbzV5huPyHP+1uSS5Juhcv324fXXeu75e6jbjaiZH1VrvvsarX8LT0rP1tfp6ypy2yLujdx" +
			"PsMf4ACM2j2/6ukSLG2NiBfIuoG+QjX1XASp0ggxCSlzfNeVggqFsae1qxFmSCmXQS0JxcSjFCpBXM8BX4f/Yf47Yb4cgMUa" +
			"hnm1XwrEMIs/2AQRRzZYIuhopSmWvnaJh5X0FESaMCqF3TVCMaf2MYW4Zo5DGSWWGEIfWOirfl/MPIHA+foGripUjw=="},
	{"pack.inspect.entry-base64-whitespace", Reason("pack.entry-base64"),
		"VElORVBBQ0szAEFz1t+P8SVXTqdZZ1T+iNko8LBX7N2oB10AqRftGGS9eNrFkctupDAQRX9l5HUWtrExRprFiEQt0EBrEIQ2" +
			"URb4QTDPKHSgmyj/PrCZX5hVlapK517d+gKTbI26zsB/+QK6ulbAB+Ye9XJIlh/lqf8s76EbDu+bxMT+DqJN4KaXxZM9t09z" +
			"OKZUnXJ7tlGvh+dPHUQ8GGcrMN90ELpxsNqqoKu+pLUYbouwByuaJQ5dhZsmbnN8HmK015vAAootXOPiuSsztfdNH285Tk5p" +
			"mwx/1njI0TnTrRjie3wqbfnY3UT2BpPtFxRZd4szRZMtd8Rx+/h2eP3YtbuwnawseFcW6zFbdi//y88qLnuwY1pXRbqF7bu8" +
			"XOBP8ACsPkJfzHj156bC1PVVVUNP44q5DoZMG4y5gowjz3GUZFIT4hrjGEw41trh0CjKCHUZg1pSx0Xg+/UB7Ky+n9b9s0D2" +
			"k/zHppgiVROFITLaMKI841CXaOVqiA3lTMl9V0vNUeURBknFEWKc0V0YQg/s6MV8zHYagY++/wIMyru1"},
	{"pack.inspect.entry-extra-key", Reason("pack.entry-shape"),
		"VElORVBBQ0szAA+SY2wmGiDq4seooOfe+xnZPcBbeRyJnFyEJiG9a3oVeNrFkcuOnDAQRf/F6yxsY2OMlEXEjFqgQCuoGdpE" +
			"WeAHg3mOhh7oZpR/H7PJL2RVparSvUe3PsEsO6NuCwh/fwJd32oQAvNIBjlma3UaPqpH7Mfj2y4xsT+jZBe4HWT5bM/d8xJP" +
			"OVWnwp5tMujx5UNHCY+mxQrMdx3Ffhptti7ppq95I8b7KuyhlSwSx77CbZt2BT6PKXL1LrCAYo+3tHzpq4tyfTuke4GzU95l" +
			"468tHQt0vuhOjOkjPVW2eurv4vIKs/0HFJf+nl4UzfbCE8ft0+vB+u68+7ibrSx5X5XbMVsdy//i2cTV5TrlTV3me9y9yesV" +
			"fgffgNVH5quZbuHS1pj6oaobGGhcM9/DkGmDMVeQcRR4npJMakJ8YzyDCcdaexwaRRmhPmNQS+r5yIkudjcgRH//uLath2He" +
			"3IeBHGb5z4RiilRDFIbIaMOICoxHfaKVryE2lDMl3a6RmqM6IAySmiPEOKOOAMIAOOnVvC92ng6jL15Gvis="},
	{"pack.inspect.entry-oid-mismatch", Reason("pack.entry-oid-mismatch"),
		"VElORVBBQ0szAJk/n85WJ9dFb986iNanfIZfUoy7Z1CvC0pyfRSLxjueeNoVjrEKwjAUAP/lzQ5p0iY24KwpKIigWHFI8p5Y" +
			"iY2Y2lrEf7dud8txH4juRr5LoE8fQNtZ0EBjFdx909fL8KpHI01bXXE0ybSbm13uu+POyPVuaHAVhnpic6+S46a5bB+xPryT" +
			"G+ICZtDgv9VT2+l0tbyQ2tsLmyO3SgrOFBLnpWeqzOZCeKcc5rkkEsTzkiOKkpEvVF5IpRi6QsgMvucZTK0Q4jANT9LTMzWx" +
			"BZ19f8odQH8="},
	{"pack.inspect.invalid-compression", Reason("pack.invalid-compression"),
		"VElORVBBQ0szAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAbm90IHpsaWI="},
	{"pack.inspect.manifest-extra-key", Reason("pack.manifest-key-set"),
		"VElORVBBQ0szAMFCwTahsh6p5Z1FluYJ5VH887cMxGvr1l1MtI/Z2KYWeNqrVkpPzUstSizJL1KyUqpQ0lHKT8pKTS4pVrKK" +
			"jtVRKs5IzMnJL4dwylKLijPz85SsDGsBCfsSgw=="},
	{"pack.inspect.manifest-malformed", Reason("pack.manifest-malformed"),
		"VElORVBBQ0szAHzPofvzlA5vDAN12HwPkjWlBRThTLQnvfr1B3mHsmzPeNrLyy9RyCrOzwMADiYDLA=="},
	{"pack.inspect.manifest-non-canonical", Reason("pack.manifest-non-canonical"),
		"VElORVBBQ0szAIVTzvqRswtpZPCA9uVdAzNse6xQ0v6w28ptYOik3KvSeNqrVirOSMzJyS9XsoqO1VHKT8pKTS4phnDKUouK" +
			"M/PzlKwMawEOpQ1W"},
	{"pack.inspect.objects-not-an-array", Reason("pack.arrays-invalid"),
		"VElORVBBQ0szAAD4R2kYzb1MWE1CKnyM6mqNaa+hTHjwsITL7TNfLsskeNqrVspPykpNLilWsqqu1VEqzkjMyckvV7KKjtVR" +
			"KkstKs7Mz1OyMqwFABS1DZY="},
	{"pack.inspect.shallow-entry-not-an-oid", Reason("pack.shallow-invalid-oid"),
		"VElORVBBQ0szAO2RdLNADubfTc2MBFUfce3RgXf3+Ju/OcOkhpX8RzfteNqrVspPykpNLilWsoqO1VEqzkjMyckvB3KUPFwd" +
			"XZSAQmWpRcWZ+XlKVoa1AFjgDqw="},
	{"pack.inspect.shallow-overlaps-objects", Reason("pack.shallow-overlaps-objects"),
		"VElORVBBQ0szAFhVrem0tGk35OmnImERT0oTbP645bmy/PSD5zFyE5T5eNrFkctupDAQRf/F6yyMsTFGmsWIRC3QQGsQhDZR" +
			"FvhBMM8odKCbKP8+ZjNfMNKsqlRVuvfo1heYRafldQHByxdQ9bUGAdD3eBBjulan4bO6R140vu8CYfMrjHeO2kGUT+bcPS3R" +
			"lBF5KszZxIManz9VGLNwWgxHbFdh5CXhZuqSbOqSNXy8rdwcWvEiUORJ1LZJV6DzmDi23jjikO/RlpTPfZVL27dDshcoPWVd" +
			"Ov7ekrFwzrnq+Jjck1Nlqsf+xvM3mO4/Ic/7W5JLku6Fy4/bx7eD9cN691E3G1Gyviq3Y7Zalv/Fs/GLzXXKmrrM9qh7F5cL" +
			"/AEegFFH5quersHS1oh4gawb6CtUU89FkCqNEJOQMsd3XSmoUBh7WrsaYYaUchnUklBMPEqhEsT1HPD9+gCs1jDMm30sEMMs" +
			"/moTRBzZYImgo5WmWPraJR5W0lMQacKoFHbXCMWc2scU4po5DmWUWGMIfQv8b1kt6qo/FjNPIHC+/wC3rdFr"},
	{"pack.inspect.trailing-bytes-after-stream", Reason("pack.truncated-or-trailing"),
		"VElORVBBQ0szAG4tbs/b0L34DE59MjIicg76PKxUXigQe3p96Iu2HgHceNrFkctupDAQRf/F6yyM8QMjzWJEohYo0AqC0GY0" +
			"C/wgmGcUOtBNlH8PbOYXZlWlqtK5V7e+wCRbo64z8P98AV1dK+ADc496OSRLeeo/y3tIw+F9kwjb5yDaBGp6WTzZc/s0h2NK" +
			"1Cm3Zxv1enj91EHEg3G2AvFNByGNg9VWBVn1Ja3FcFuEPVjRLFFIFWqauM3ReYidvd4EElBs4RoXr12Zqb1v+njLUXJK22R4" +
			"WeMhd86ZbsUQ3+NTacvH7iayN5hsv6HIulucKZJsuSuO28e3w+vHrt2F7WRlwbuyWI/Zsnv5X35WcdlzHdO6KtItbN/l5QJ/" +
			"gQdg9ZH5YsarPzcVItRXVQ09jSpGXQSZNghxBRl3PNdVkkmNMTXGNQhzpLXLoVGEYUIZg1oSlzrg++8D2Fl9P637Y4HsJ/mP" +
			"TRBxVI0Vgo7RhmHlGZdQrBXVEBnCmZL7rpaaO5WHGcQVdxzGGdmFIfTAjl7Mx2ynEfjO9w++ALuVAA=="},
	{"pack.inspect.truncated-stream", Reason("pack.truncated-or-trailing"),
		"VElORVBBQ0szAG4tbs/b0L34DE59MjIicg76PKxUXigQe3p96Iu2HgHceNrFkctupDAQRf/F6yyM8QMjzWJEohYo0AqC0GY0" +
			"C/wgmGcUOtBNlH8PbOYXZlWlqtK5V7e+wCRbo64z8P98AV1dK+ADc496OSRLeeo/y3tIw+F9kwjb5yDaBGp6WTzZc/s0h2NK" +
			"1Cm3Zxv1enj91EHEg3G2AvFNByGNg9VWBVn1Ja3FcFuEPVjRLFFIFWqauM3ReYidvd4EElBs4RoXr12Zqb1v+njLUXJK22R4" +
			"WeMhd86ZbsUQ3+NTacvH7iayN5hsv6HIulucKZJsuSuO28e3w+vHrt2F7WRlwbuyWI/Zsnv5X35WcdlzHdO6KtItbN/l5QJ/" +
			"gQdg9ZH5YsarPzcVItRXVQ09jSpGXQSZNghxBRl3PNdVkkmNMTXGNQhzpLXLoVGEYUIZg1oSlzrg++8D2Fl9P637Y4HsJ/mP" +
			"TRBxVI0Vgo7RhmHlGZdQrBXVEBnCmZL7rpaaO5WHGcQVdxzGGdmFIfTAjl7Mx2ynEfjO9w8="},
	{"pack.inspect.version-true", Reason("pack.version-unsupported"),
		"VElORVBBQ0szANVSpS0r0wjHceGx2XtMi8y0kXvHU1NopwvsquOATvYIeNqrVspPykpNLilWsoqO1VEqzkjMyckvh3DKUouK" +
			"M/PzlKxKikpTawE5oA7l"},
	{"pack.inspect.version-two", Reason("pack.version-unsupported"),
		"VElORVBBQ0szALUDAcibsQHqG3UMQ+lNBMNUkKVfC3NNsfAG4dTLkrPqeNqrVspPykpNLilWsoqO1VEqzkjMyckvh3DKUouK" +
			"M/PzlKyMagEN1w1X"},
	{"bounds.pack.magic-truncated", Reason("pack.bad-magic"),
		"VElORVBBQ0szAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},
	{"repair.pack-base64-whitespace-stripped", Reason("pack.entry-base64"),
		"VElORVBBQ0szAEFz1t+P8SVXTqdZZ1T+iNko8LBX7N2oB10AqRftGGS9eNrFkctupDAQRX9l5HUWtrExRprFiEQt0EBrEIQ2" +
			"URb4QTDPKHSgmyj/PrCZX5hVlapK517d+gKTbI26zsB/+QK6ulbAB+Ye9XJIlh/lqf8s76EbDu+bxMT+DqJN4KaXxZM9t09z" +
			"OKZUnXJ7tlGvh+dPHUQ8GGcrMN90ELpxsNqqoKu+pLUYbouwByuaJQ5dhZsmbnN8HmK015vAAootXOPiuSsztfdNH285Tk5p" +
			"mwx/1njI0TnTrRjie3wqbfnY3UT2BpPtFxRZd4szRZMtd8Rx+/h2eP3YtbuwnawseFcW6zFbdi//y88qLnuwY1pXRbqF7bu8" +
			"XOBP8ACsPkJfzHj156bC1PVVVUNP44q5DoZMG4y5gowjz3GUZFIT4hrjGEw41trh0CjKCHUZg1pSx0Xg+/UB7Ky+n9b9s0D2" +
			"k/zHppgiVROFITLaMKI841CXaOVqiA3lTMl9V0vNUeURBknFEWKc0V0YQg/s6MV8zHYagY++/wIMyru1"},
	{"repair.pack-unknown-top-level-key-dropped", Reason("pack.manifest-key-set"),
		"VElORVBBQ0szAFuoM3xqyKYiMAKDWXfHSwLRFKWhG3ipwjzTCuyY3a6teNolxzEKgDAMBdC7/LkdXHMVcajy0UptIAl2EO/u" +
			"4Nveg52dVkINAteL2pnZnJ6H1aAhQdeTWzhkXhL8KK3p+HPTvGqHTO8H6VoaFA=="},
}

func TestInspectPackRejectVectors(t *testing.T) {
	for _, tc := range packRejectVectors {
		t.Run(tc.id, func(t *testing.T) {
			frame, err := base64.StdEncoding.DecodeString(tc.b64)
			if err != nil {
				t.Fatalf("vector base64: %v", err)
			}
			pf, err := InspectPack(frame, SHA256)
			if err == nil {
				t.Fatalf("accepted with id %s and %d objects; want %s", pf.ID, len(pf.Objects), tc.reason)
			}
			if got, _ := ReasonOf(err); got != tc.reason {
				t.Fatalf("reason %q, want %q (error: %v)", got, tc.reason, err)
			}
		})
	}
}
