#include "textflag.h"

// Thirty-two bytes of ' ', the largest candidate byte.
DATA spaces<>+0(SB)/8, $0x2020202020202020
DATA spaces<>+8(SB)/8, $0x2020202020202020
DATA spaces<>+16(SB)/8, $0x2020202020202020
DATA spaces<>+24(SB)/8, $0x2020202020202020
GLOBL spaces<>(SB), RODATA|NOPTR, $32

// func lowMaskAVX2(p *byte) uint64
// A byte is a candidate when min(byte, ' ') equals it (an unsigned <=).
TEXT ·lowMaskAVX2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	VMOVDQU spaces<>(SB), Y2
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VPMINUB Y2, Y0, Y3
	VPMINUB Y2, Y1, Y4
	VPCMPEQB Y0, Y3, Y3
	VPCMPEQB Y1, Y4, Y4
	VPMOVMSKB Y3, AX
	VPMOVMSKB Y4, BX
	SHLQ $32, BX
	ORQ BX, AX
	VZEROUPPER
	MOVQ AX, ret+8(FP)
	RET
