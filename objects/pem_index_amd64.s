//go:build amd64 && !purego

#include "textflag.h"

// func pemCandidate(b []byte) int
//
// The smallest p with p+6 <= len(b), b[p] == '-', b[p+4] == '-' and
// b[p+5] == 'B', or -1. Each step loads 64 bytes at p and turns them into
// two bit masks, '-' at bit i and 'B' at bit i; a position i whose six
// bytes are all loaded (i <= 58) is a candidate where dash & dash>>4 &
// b>>5 has bit i. The step then moves 59 bytes on, while 64 bytes are
// left to load; the rest is tested one position at a time.
TEXT ·pemCandidate(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	XORQ AX, AX
	MOVL $0x2d, CX
	MOVQ CX, X1
	VPBROADCASTB X1, Y1 // '-' in every byte
	MOVL $0x42, CX
	MOVQ CX, X2
	VPBROADCASTB X2, Y2 // 'B' in every byte
	MOVQ $0x07ffffffffffffff, R11 // positions 0..58
	LEAQ -64(BX), DX    // last p with 64 bytes to load; negative: none

block:
	CMPQ      AX, DX
	JGT       tail
	VMOVDQU   (SI)(AX*1), Y3
	VMOVDQU   32(SI)(AX*1), Y4
	VPCMPEQB  Y1, Y3, Y5
	VPCMPEQB  Y1, Y4, Y6
	VPMOVMSKB Y5, R8
	VPMOVMSKB Y6, R9
	SHLQ      $32, R9
	ORQ       R9, R8 // '-' at bit i
	VPCMPEQB  Y2, Y3, Y5
	VPCMPEQB  Y2, Y4, Y6
	VPMOVMSKB Y5, R10
	VPMOVMSKB Y6, R9
	SHLQ      $32, R9
	ORQ       R9, R10 // 'B' at bit i
	MOVQ      R8, R9
	SHRQ      $4, R9
	ANDQ      R9, R8
	SHRQ      $5, R10
	ANDQ      R10, R8
	ANDQ      R11, R8
	JNZ       found
	ADDQ      $59, AX
	JMP       block

found:
	BSFQ R8, R8
	ADDQ R8, AX
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

tail:
	VZEROUPPER
	LEAQ -6(BX), DX // last p whose six bytes are inside b

tailloop:
	CMPQ AX, DX
	JGT  none
	CMPB (SI)(AX*1), $0x2d
	JNE  next
	CMPB 4(SI)(AX*1), $0x2d
	JNE  next
	CMPB 5(SI)(AX*1), $0x42
	JNE  next
	MOVQ AX, ret+24(FP)
	RET

next:
	INCQ AX
	JMP  tailloop

none:
	MOVQ $-1, ret+24(FP)
	RET
